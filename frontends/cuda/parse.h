/*
 * parse.h - what parse.c shares with the other parser files: the
 * token cursor, the scope of type names, and the parsers each file calls
 * in the others (fe_p_ names; everything else in fe.h).
 */
#ifndef CVM_FE_PARSE_H
#define CVM_FE_PARSE_H

#include "fe.h"

/* parse.c */
fe_tok *fe_p_peek(fe_ctx *c);
fe_tok *fe_p_peek_at(fe_ctx *c, uint32_t k);
fe_tok *fe_p_next(fe_ctx *c);
bool fe_p_is(fe_ctx *c, const char *s);
bool fe_p_accept(fe_ctx *c, const char *s);
fe_tok *fe_p_expect(fe_ctx *c, const char *s);
fe_tok *fe_p_expect_ident(fe_ctx *c);
const char *fe_p_tok_name(fe_ctx *c, const fe_tok *t);
void fe_p_unsupported(fe_ctx *c, fe_tok *t, const char *what);
fe_tname *fe_p_lookup(fe_ctx *c, const char *s, size_t n);
fe_tname *fe_p_push_tname(fe_ctx *c, const char *name, fe_type *ty, bool is_value, int64_t v);
/* __device__, __host__, inline, constexpr, static, explicit ... before a function's declarator */
bool fe_p_fn_specifier(const fe_tok *t);
bool fe_p_is_typename(fe_ctx *c, fe_tok *t);
uint32_t fe_p_const_dim(fe_ctx *c, fe_tok *at);
fe_type *fe_p_declspec(fe_ctx *c, unsigned *storage, uint32_t *launch_bound);
fe_type *fe_p_declarator(fe_ctx *c, fe_type *ty, fe_tok **name_tok);
fe_type *fe_p_type_name(fe_ctx *c);
fe_type *fe_p_targ_type(fe_ctx *c);
bool fe_p_typename_at(fe_ctx *c, uint32_t k);
void fe_p_module_decl(fe_ctx *c);        /* parse_top.c: a namespace-scope declaration (a friend's definition) */
void fe_p_add_func(fe_ctx *c, fe_node *f);  /* parse_top.c: a function into c->funcs */
fe_node *fe_var_template_value(fe_ctx *c, fe_template *t, fe_type **targs, const int64_t *tvals, int n,
                               fe_tok *where); /* parse_decl.c: pi<float> */
fe_node *fe_p_function(fe_ctx *c, fe_type *ret, fe_tok *nt, unsigned storage, uint32_t lb);
fe_node *fe_p_assign(fe_ctx *c);
fe_node *fe_p_conditional(fe_ctx *c);
fe_node *fe_p_args_list(fe_ctx *c);   /* after '(' up to and with ')' */
void fe_p_skip_attributes(fe_ctx *c);
void fe_p_toplevel(fe_ctx *c);        /* one module-scope item (also local using/typedef/struct/enum) */
void fe_p_skip_balanced(fe_ctx *c);
void fe_p_declaration(fe_ctx *c);
int fe_p_template_args(fe_ctx *c, fe_type **targs, int64_t *tvals); /* at '<': Name<args>'s count */      /* a module-scope declaration after its linkage */

fe_node *fe_p_new_node(fe_ctx *c, fe_nk kind, fe_tok *tok);
fe_node *fe_p_new_bin(fe_ctx *c, int op, fe_tok *t, fe_node *a, fe_node *b);
fe_node *fe_p_param_list(fe_ctx *c);
fe_node *fe_p_compound(fe_ctx *c);
fe_node *fe_p_expr(fe_ctx *c);
fe_node *fe_p_stmt(fe_ctx *c);                /* parse_stmt.c */
fe_node *fe_p_initializer(fe_ctx *c);         /* parse_stmt.c: = expr or a braced list */
fe_type *fe_p_sized_by_init(fe_ctx *c, fe_type *ty, const fe_node *init); /* a[] = {...}: its length */
void fe_p_check_unsized(fe_ctx *c, const fe_node *d); /* int a[]; without extern is an error */
void fe_p_shadow(fe_ctx *c, const char *name);
fe_tname *fe_p_declare_var(fe_ctx *c, const char *name, fe_type *ty);
fe_node *fe_p_static_value(fe_ctx *c, const fe_tname *s, fe_tok *t);
void fe_p_declare_namespace(fe_ctx *c, const char *path);
void fe_p_namespace_alias(fe_ctx *c);              /* at x of `namespace x = a::b;` */
void fe_p_using_namespace(fe_ctx *c, uint32_t k);   /* the name after `using namespace` at peek k */
/* A using-directive naming ns written in namespace `at` (or an inline
 * namespace ns of `at`), in a function body when `local` (then in force to
 * the end of the block: fe_ctx.using_on); the same one again, a
 * template's body parsed per instance, keeps its entry. */
void fe_p_add_directive(fe_ctx *c, const char *at, const char *ns, bool local, const fe_tok *where);
void fe_p_using_decl(fe_ctx *c);                     /* `using a::b::f;` at its first name */
const char *fe_p_namespace_of(fe_ctx *c, const char *qual); /* a written qualifier's namespace, or NULL */
bool fe_p_const_array(const fe_node *d, unsigned storage);

/* parse_cxx.c */
fe_node *fe_p_lambda(fe_ctx *c);                                       /* at '[' */
fe_node *fe_p_static_member(fe_ctx *c, fe_type *st, fe_tok *name);     /* S::name */
fe_node *fe_p_numeric_limits(fe_ctx *c);                               /* at numeric_limits */
bool fe_p_is_value_trait(fe_ctx *c, const fe_tok *t);       /* std::is_same<... at t */
bool fe_p_is_type_trait(fe_ctx *c, const fe_tok *t);        /* std::conditional<... at t */
bool fe_p_is_enable_if(fe_ctx *c, const fe_tok *t);         /* std::enable_if<... at t */
fe_node *fe_p_value_trait(fe_ctx *c);                       /* at the trait's name: a bool constant */
fe_type *fe_p_type_trait(fe_ctx *c);                        /* at the trait's name: its type */
bool fe_p_member_targs_ahead(fe_ctx *c);                               /* at '<' after obj.name */
bool fe_p_range_for_ahead(fe_ctx *c);                                  /* after `for (` */
void fe_p_range_for(fe_ctx *c, fe_node *n);                            /* fills the N_FOR n */
void fe_p_split(fe_ctx *c, fe_tok *t); /* '>>' at t as its second '>' (the first closes a template list) */
void fe_p_unsplit(fe_ctx *c, int mark); /* the '>>' tokens split since nsplits was mark */
bool fe_p_const_call(fe_ctx *c, fe_node *e, int64_t *out, fe_kind *kind); /* constexpr f(args) */

/* parse_decl.c */
fe_type *fe_p_struct_spec(fe_ctx *c);  /* at struct/class/union */
fe_type *fe_p_struct_body(fe_ctx *c, fe_type *t); /* after its '{', to its '}' (parse_struct.c) */
void fe_p_base_clause(fe_ctx *c, fe_type *t); /* at the ':' of `struct D : B {`: t's bases */
void fe_p_push_base_names(fe_ctx *c, const fe_type *s); /* names s's bases give its members' bodies */
uint32_t fe_p_alignment(fe_ctx *c);    /* __align__(N) / alignas(N) at the cursor: N, consumed; else 0 */
fe_type *fe_p_enum_spec(fe_ctx *c);    /* at enum */
void fe_p_declare_members(fe_ctx *c, const fe_type *s); /* a member body outside s sees them */
void fe_p_template_decl(fe_ctx *c);    /* at template */
/* Host code: a declaration without CUDA qualifiers, parsed when it can be and
 * skipped (remembered by name) when it cannot; false when not host code. */
bool fe_p_host_decl(fe_ctx *c);
/* Remembers a host function or variable, for the diagnostic of a kernel that uses it. */
void fe_p_host_name(fe_ctx *c, fe_tok *name, bool is_func);

#endif
