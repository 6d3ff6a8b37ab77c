/*
 * fe.h - internal interface of the CUDA C frontend (frontends/cuda/).
 *
 * The compiler is four stages, chibicc style, each in its own file:
 *   lex.c    preprocessed text -> tokens with file/line/col (honours the
 *            preprocessor's GNU line markers)
 *   parse.c / parse_decl.c / parse_cxx.c
 *            tokens -> AST (a C++ subset: declarations, statements,
 *            expressions; structs with member functions, enums, templates
 *            kept as token ranges: parse_decl.c; lambdas, range-for,
 *            static members, constexpr calls: parse_cxx.c; namespaces:
 *            parse_ns.c; sharing parse.h)
 *   type.c   C types, sizes, promotions and the usual conversions
 *   lower.c / lower_expr.c / lower_module.c / lower_tmpl.c / builtins.c / cg.c
 *            (lower_class.c: base classes; lower_lambda.c: lambda captures)
 *            AST -> .cbs text (docs/lowering.md is the contract), which
 *            compile.c assembles, verifies and serializes.
 *
 * Errors never unwind: the first error is recorded in the context and
 * every stage checks `c->err` and winds down (the lexer hands out EOF
 * tokens from then on), so bad input cannot loop or crash.
 */
#ifndef CVM_FE_H
#define CVM_FE_H

#include "../../bytecode/bc.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- arena and text buffers (all memory through the caller's allocator) ---- */

typedef struct fe_chunk fe_chunk;

typedef struct fe_buf {
    char *p;
    size_t len, cap;
} fe_buf;

/* ---- tokens ---- */

typedef enum fe_tk { TK_EOF, TK_IDENT, TK_INT, TK_FLOAT, TK_STR, TK_CHAR, TK_PUNCT, TK_PRAGMA } fe_tk;

typedef struct fe_tok {
    fe_tk kind;
    const char *s;      /* text (not NUL-terminated) */
    uint32_t len;
    uint32_t file, line, col;
    const char *line_start; /* start of the source line, for carets */
    uint64_t ival;      /* TK_INT, TK_CHAR; TK_STR: the decoded length */
    double fval;        /* TK_FLOAT */
    bool is_unsigned, is_long, is_float32; /* literal suffixes */
    bool nondecimal;    /* hex/octal/binary integer literal (may be unsigned int) */
    char *str;          /* TK_STR: decoded, NUL-terminated */
} fe_tok;

/* ---- types ---- */

typedef enum fe_kind {
    TY_VOID, TY_BOOL, TY_I8, TY_I16, TY_I32, TY_I64, TY_U8, TY_U16, TY_U32, TY_U64,
    TY_F16, TY_BF16, TY_F32, TY_F64, TY_PTR, TY_ARRAY, TY_VEC, TY_STRUCT, TY_DIM3
} fe_kind;

typedef struct fe_type fe_type;
typedef struct fe_member {
    const char *name;
    fe_type *ty;
    uint32_t offset;
    struct fe_node *init; /* default member initializer (float a = 1.0f; int b{2};), or NULL */
    struct fe_member *next;
    bool anon;            /* an anonymous union or struct: its members are named as the parent's */
    bool is_base;         /* a base class subobject (struct D : B): ty is B, name "" (no name of its own);
                             its members are found through D after D's own (fe_member_lookup) */
} fe_member;

struct fe_type {
    fe_kind kind;
    fe_type *base;      /* pointer target, array element, vector element */
    uint32_t len;       /* array length, vector lanes */
    uint32_t size, align;
    bool is_const, is_volatile, is_ref;
    /* an enum's type: its underlying integer type, marked by the enum it
     * is (qualified copies keep the mark); NULL for every other type.
     * Only a reference binding tells them apart (fe_bind_converted). */
    const fe_type *enum_id;
    bool is_rref;       /* T && (is_ref too): binds a temporary as well as an lvalue (forwarding) */
    const char *name;   /* struct tag */
    fe_member *members; /* struct members */
    struct fe_node *methods; /* struct member functions (N_FUNC list) */
    bool complete;
    bool is_union;      /* a union: every member at offset 0 */
    bool is_class;      /* declared with `class`: members are private until an access specifier */
    /* Itanium C++ ABI layout (fe_struct_layout): dsize is the size without
     * tail padding, where a derived struct places its own members when the
     * struct is not POD for layout (nonpod: a user constructor, copy
     * assignment or destructor, a base, a default member initializer, a
     * non-public data member, or a member of such a type; the parser sets
     * it for the last two it sees, the layout adds the rest) */
    uint32_t dsize;
    bool nonpod;
    uint32_t nbases;    /* base class subobjects, bases of bases counted (bounded: diamonds double them) */
    /* qualified/reference copies of a struct made before its '}' are
     * completed with it: the root keeps the list (origin, next_copy) */
    fe_type *origin, *copies, *next_copy;
    int cg;             /* cooperative-groups objects (CG_*), empty structs the builtins know */
    struct fe_template *tmpl; /* an instance of this struct template (Name<...> inside it) */
    fe_type *cg_next;   /* the context's list of them */
    uint32_t cg_parent; /* a tile's parent tile size (tiled_partition of a tile); 0: the block */
    /* a lambda's closure: methods holds its operator(); lambda_env is the
     * lowering's variable list where the lambda expression was evaluated
     * (the captures: names resolve there, so [&] and [=] both see them);
     * the expression evaluated on another path of inlined calls (a function
     * that makes it, called from two places) makes a closure type of its
     * own, so each closure keeps its own (lower_lambda.c fe_closure_type) */
    bool is_nullptr; /* the type of `nullptr` as an argument: a void * that deduces no T * */
    bool is_lambda;
    struct fe_closure_site *lambda_sites; /* the closure types its evaluations made, by call path */
    void *lambda_env;
    void *lambda_base;  /* ... the variables under its captures there (lambda_env without them) */
    struct fe_template *mtemplates; /* member function templates (on the root of the copies) */
    struct fe_tname *statics; /* static constexpr integer members (S::N) */
    struct fe_tname *mtypes;  /* member types (typedef T name; using name = T;), S::name */
    struct fe_node *decltype_expr; /* decltype(e): a TY_VOID placeholder the lowering resolves */
    const char *def_ns; /* a struct defined at namespace scope: its namespace ("" for the file's) */
};

/* cooperative_groups types: groups, and the reduction operators of cg::reduce */
enum { CG_NONE, CG_BLOCK, CG_TILE, CG_GRID, CG_GROUP, CG_COALESCED, CG_FAMILY, CG_PLUS, CG_LESS, CG_GREATER, CG_BIT_AND,
       CG_BIT_OR, CG_BIT_XOR };

/* ---- AST ---- */

typedef enum fe_nk {
    /* expressions */
    N_INT, N_FLOAT, N_STR, N_IDENT, N_BIN, N_ASSIGN, N_UNARY, N_PREINC, N_PREDEC, N_POSTINC,
    N_POSTDEC, N_COND, N_COMMA, N_CAST, N_SIZEOF, N_CALL, N_INDEX, N_MEMBER, N_ARROW, N_INITLIST,
    N_BOOL, N_THIS, N_LAMBDA,
    /* statements */
    N_BLOCK, N_DECL, N_EXPR, N_IF, N_FOR, N_WHILE, N_DO, N_SWITCH, N_CASE, N_DEFAULT, N_BREAK,
    N_CONTINUE, N_RETURN, N_EMPTY, N_STATIC_ASSERT,
    /* top level */
    N_FUNC
} fe_nk;

/* binary/unary operator codes: the punctuator's characters packed (e.g. '<' | '<' << 8) */
#define FE_OP2(a, b) ((int)(a) | ((int)(b) << 8))

typedef struct fe_node fe_node;
struct fe_node {
    fe_nk kind;
    fe_tok *tok;        /* position */
    int op;             /* operator (N_BIN, N_ASSIGN, N_UNARY) */
    fe_node *a, *b, *c, *d; /* children: operands, cond/then/else, init/cond/step/body */
    fe_node *next;      /* lists: statements, arguments, declarators */
    fe_node *args;      /* call arguments, block items, init lists */
    fe_type *ty;        /* cast/sizeof/decl type, function return type */
    const char *name;   /* identifier, member, declared name, function name */
    uint64_t ival;
    double fval;
    bool is_float32, is_long, is_unsigned;
    /* declarations */
    unsigned storage;   /* FE_S_* bits */
    /* functions */
    fe_node *params;    /* N_DECL list */
    fe_node *body;
    uint32_t launch_bound;
    fe_type *owner;     /* member functions: the struct; N_MEMBER/N_ARROW: the class written before
                           the member (d.B::x, this->B::f()), or the base a constructor initializes */
    bool is_ctor, is_operator, is_conversion;
    bool is_explicit;   /* an `explicit` conversion operator: casts and conditions only */
    bool is_friend; /* a friend defined in a struct (another instance of the struct template may make it again) */
    bool is_const_fn;    /* a member function declared `const` after its parameters */
    bool is_member_init; /* N_CAST 'F' without a type: a constructor's m(a, b) or S(a, b) initializer,
                            of the type of the member (or *this) it initializes */
    bool is_defaulted;  /* `= default` copy or assignment, `= delete`: nothing to call */
    /* a lambda's operator(): its capture default ('=', '&' or 0), its named
     * captures (N_IDENT, op '&' by reference, b an init-capture's value) */
    int cap_default;
    fe_node *captures;
    bool is_mutable;
    bool is_default_body; /* S() = default: an empty body that is not user-provided (layout: POD) */
    fe_type **targs;    /* N_IDENT/N_CALL with explicit template arguments (types or NULL) */
    int64_t *tvals;     /*   ... and their integer values */
    int ntargs;
    bool pragma_unroll; /* loops preceded by #pragma unroll */
    bool is_constexpr;  /* N_IF: `if constexpr`, whose condition must fold */
    const fe_node *const_decl; /* N_IDENT naming a const integer array: its declaration, whose
                                  elements are constants (fe_const_eval of dims[1]) */
    const char *ns;     /* N_FUNC: the namespace it is defined in ("a::b"; "" for the file's) */
    uint16_t using_on;  /* fe_ctx.using_on and decl_on where the node was parsed: the function-body */
    uint32_t decl_on;   /*   using-directives and -declarations a call here sees */
    const char *qual;   /* N_IDENT: the namespace written before it (a::f: "a"; ::f: ""), else NULL */
    const char *desig;  /* an element of a braced initializer written `.member = value` */
    fe_tok *desig_tok;  /*   ... the member's name there */
};

#define FE_S_GLOBAL 1u   /* __global__ */
#define FE_S_DEVICE 2u   /* __device__ */
#define FE_S_SHARED 4u   /* __shared__ */
#define FE_S_CONSTANT 8u /* __constant__ */
#define FE_S_EXTERN 16u
#define FE_S_STATIC 32u
#define FE_S_TYPEDEF 64u
#define FE_S_CONSTEXPR 128u
#define FE_S_HOST 256u

/* A template: its parameters and the token range of its definition. */
typedef struct fe_template {
    const char *name;
    int nparams;
    const char *pnames[8];
    bool pis_type[8];
    fe_type *ptypes[8];  /* value parameters: their type */
    bool has_def[8];     /* default arguments (template <int N = 256, class T = float>) */
    fe_type *pdef_ty[8];
    int64_t pdef_val[8];
    bool pdef_dep[8];    /* ... naming an earlier parameter (N = sizeof(T)): parsed again
                          * from token pdef_pos with the arguments bound, at each use */
    uint32_t pdef_pos[8];
    uint32_t tok_begin, tok_end; /* the declaration after `template <...>` */
    bool is_struct;
    bool is_var;         /* `template <...> constexpr T name = value;`: a value per
                          * argument list (tok_begin..tok_end: the declaration) */
    bool is_alias;       /* `template <...> using Name = type;` (is_struct too: a type
                          * template); tok_begin..tok_end is the aliased type */
    struct fe_tinst *insts; /* struct templates: the instances made so far */
    fe_type *owner;      /* member templates: the struct */
    struct fe_tname *scope; /* member templates: the names in scope at the declaration */
    const char *ns;      /* the namespace it is declared in ("" for the file's) */
    struct fe_template *next;
} fe_template;

typedef struct fe_tinst {
    fe_type *targs[8];
    int64_t tvals[8];
    fe_type *ty;
    struct fe_node *fn; /* function templates: an explicit specialization (template <> f<float>) */
    struct fe_template *tmpl; /* fe_ctx.explicit_insts: the template instantiated */
    struct fe_tinst *next;
} fe_tinst;

/* A name bound at parse time to a type (typedef, struct, enum, template type argument). */
typedef struct fe_tname {
    const char *name;
    fe_type *ty;
    int64_t value;      /* enumerators / template value arguments */
    fe_type *var_ty;    /* a local variable's or parameter's declared type (ty NULL: it
                         * hides outer names), for decltype(name) while parsing */
    const struct fe_node *const_decl; /* a const integer array's declaration (fe_p_const_array) */
    const char *def_ns; /* a constant defined at namespace scope: its namespace */
    struct fe_node *value_expr; /* a static constexpr float or double member: its value, converted */
    bool is_value;
    bool member;        /* a struct's static constant or member type: named until its '}' */
    struct fe_tname *next;
} fe_tname;

/* Host code the parser skipped or set aside (main, runtime API calls, host
 * variables): named in the diagnostic of a kernel that uses it. */
typedef struct fe_hostname {
    const char *name;
    bool is_func;
    struct fe_hostname *next;
} fe_hostname;

/* ---- the compiler context ---- */

typedef struct fe_ctx {
    bool host_body; /* parsing a __host__-only function's body (parse.c function()) */
    bool in_targs;  /* parsing a template argument: '>>' closes two lists, not a shift (C++11) */
    bool in_friend; /* parsing a friend's definition: a second identical one (another instance
                     * of its struct template) is the same function */
    cvm_alloc_fn alloc;
    void *alloc_user;
    fe_chunk *chunks;
    cvm_diag *diag;
    bool err;
    bool err_kept;  /* the error is one of the file's own, not a sign of host code (fe_p_host_decl) */
    cvm_status err_status;
    int fmad;
    int debug_vars;    /* -O0: also name inlined calls' parameters and memory variables
                          (their extra copies and addresses would hold code in loops at -O1) */

    /* files named by line markers */
    const char **files;
    uint32_t nfiles, capfiles;

    /* tokens */
    fe_tok *toks;
    uint32_t ntoks, captoks, pos;
    fe_tok eof;

    /* parse results */
    fe_node *funcs;     /* N_FUNC list (functions with bodies and prototypes) */
    fe_node *globals;   /* module-scope N_DECL list (__device__, __constant__, __shared__) */
    fe_tname *tnames;   /* type names and constants in scope (a stack: newest first) */
    fe_template *templates;
    fe_hostname *host_names;
    /* namespaces: the one being parsed ("a::b", "" at file scope), every
     * one declared (their full paths), the using-directives seen; body_depth
     * counts the function and struct bodies being parsed (0: namespace scope) */
    const char *ns;
    const char *nss[256];
    int nns;
    const char *using_ns[16];
    const char *using_at[16]; /* ... and the namespace each directive is written in ("": the file's) */
    const char *decl_name[32], *decl_from[32], *decl_at[32]; /* `using a::f;` written in decl_at: f is a's */
    int ndecl;
    int nusing;
    /* written in a function body: in force for the calls written after it
     * to the end of its block, lambdas and local structs' functions there
     * included (lexically: using_on and decl_on below, copied into each
     * node), and never a directive of the namespace the function is in */
    bool using_local[16], decl_local[32];
    uint16_t using_on; /* the body directives in force where the parser is (bit i: using_ns[i]) */
    uint32_t decl_on;  /* ... and body using-declarations (bit i: decl_name[i]) */
    const char *alias_name[16], *alias_path[16]; /* namespace x = a::b; */
    int nalias;
    int body_depth;
    fe_type *cur_struct; /* the struct whose body is being parsed (its enumerators are its statics too) */

    struct fe_lower *lw; /* lower.c state */
    int inst_depth;      /* nested template instantiations (bounded) */
    fe_node *ce_funcs;   /* the functions declared before the outermost instantiation under way (which
                            collects its own in c->funcs): constexpr calls in its body find them here */
    int fn_inst;         /* function template instances being parsed (T && there is forwarding) */
    unsigned inst_comptime; /* the next fe_instantiate leaves these value parameters
                               unbound (bit i: parameter i): comptime parameters */
    fe_type *cg_types;   /* cooperative-groups types made so far (fe_cg_type) */
    fe_type *tmpl_owner; /* the struct whose body holds the template being declared */
    const fe_tok *decl_owner; /* the last declarator's qualifier (S of S::name), else NULL */
    const char *decl_ns;      /* ... the namespace its qualifier names (a of a::f), else NULL */
    fe_tinst *explicit_insts; /* template __global__ void k<float>(...);: kernels compiled by default */
    /* fe_const_eval inside a constexpr function: its parameters' and locals' values */
    const char *ce_names[64];
    int64_t ce_vals[64];
    fe_kind ce_kinds[64]; /* ... and their integer types (a value is kept in its type's range) */
    int ce_n, ce_depth;
    long ce_steps;       /* statements run by the evaluation under way (bounded) */
    long ce_total;       /* ... and by every evaluation of the compile (bounded) */
    /* '>>' tokens split to close two template argument lists (the token
     * becomes its second '>'); each replay of a template's tokens puts
     * back those split while it ran (fe_p_unsplit) */
    fe_tok *splits[256];
    int nsplits;
    int nest;            /* expressions and statements being parsed or lowered inside each other:
                            bounded (FE_MAX_NEST), so deep nesting is an error, not a stack overflow */
} fe_ctx;

/* ---- util (compile.c) ---- */

void *fe_alloc(fe_ctx *c, size_t size);          /* zeroed arena memory; NULL sets an error */
char *fe_strndup(fe_ctx *c, const char *s, size_t n);
const char *fe_escape(fe_ctx *c, const char *s); /* for a .cbs "string" */
char *fe_fmt(fe_ctx *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void fe_buf_add(fe_ctx *c, fe_buf *b, const char *s, size_t n);
void fe_buf_printf(fe_ctx *c, fe_buf *b, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void fe_buf_free(fe_ctx *c, fe_buf *b);
size_t fe_ns_parent(const char *ns, size_t n); /* parse_ns.c: the enclosing namespace's length in ns */
bool fe_ns_encloses(const char *outer, const char *ns); /* parse_ns.c: outer is ns or encloses it */
void fe_builtin_types(fe_ctx *c); /* type.c: the type names every source starts with */
/* Records the first error at tok (NULL: no position) and formats the full diagnostic. */
void fe_error(fe_ctx *c, const fe_tok *tok, cvm_status st, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* ---- lex.c ---- */

cvm_status fe_lex(fe_ctx *c, const char *text, size_t len, const char *filename);

/* ---- parse.c ---- */

void fe_parse(fe_ctx *c);
bool fe_tok_is(const fe_tok *t, const char *s);
/* Parses the template `t` instantiated with the given arguments (re-reading its tokens). */
fe_node *fe_instantiate(fe_ctx *c, fe_template *t, fe_type **targs, const int64_t *tvals, int n,
                        const fe_tok *where);
fe_template *fe_find_template(fe_ctx *c, const char *name);
/* Completes n explicit arguments of t with its defaults; the new count (n when some lack one). */
int fe_template_defaults(fe_ctx *c, const fe_template *t, fe_type **targs, int64_t *tvals, int n);
/* Deduces the arguments of function template t from call argument types. */
/* The function template `name` that takes nargs arguments (overloads by
 * arity), else the first of that name; NULL if there is none. */
fe_template *fe_find_template_for(fe_ctx *c, const char *name, int nargs);
/* instance.c: an integer template argument of an instance name ("256u",
 * "0xffffffffffffffffull", "-3", "true"); false for anything else. *above:
 * the value is above INT64_MAX (*out holds its bits), which only a u64
 * parameter takes: fe_targ_fits says whether an integer parameter of that
 * signedness and width (bool: 1 bit) holds the value (an instance's
 * argument converts to its parameter's type without narrowing, as in
 * C++). */
bool fe_int_targ(const char *s, size_t len, int64_t *out, bool *above);
bool fe_targ_fits(bool is_signed, unsigned bits, int64_t v, bool above);
/* type.c: the scalar type an instance name's type argument spells, in
 * any of C's spellings ("unsigned char", "long long int", "signed") or a
 * built-in typedef's ("uint32_t", "size_t", "__half"); false for anything
 * else (structs, the file's own typedefs). */
bool fe_scalar_type_name(const char *s, size_t len, fe_kind *out);
bool fe_deduce(fe_ctx *c, fe_template *t, fe_type **types, int nargs, fe_type **targs, int64_t *tvals,
               int nexplicit);
/* The struct type `t<args>` (instantiated once per argument list). */
fe_type *fe_instantiate_struct(fe_ctx *c, fe_template *t, fe_type **targs, const int64_t *tvals, int n,
                               const fe_tok *where);
/* The type a name denotes at the end of the translation unit (make_float4 -> float4), or NULL. */
fe_type *fe_lookup_type(fe_ctx *c, const char *name);
fe_node *fe_parse_shift(fe_ctx *c); /* a shift-expression (template arguments) */
/* The host function (is_func) or variable of that name the parser set aside, or NULL. */
const fe_hostname *fe_host_name(fe_ctx *c, const char *name, bool is_func);
/* Integer constant expression; false (no error) when not constant. */
#define FE_MAX_NEST 1500
/* The bytes of one string literal after adjacent ones are joined. */
#define FE_MAX_STRING (16u << 20)
/* Enters one more level of nesting at t (false, with an error, past
 * FE_MAX_NEST); fe_leave leaves it. */
bool fe_enter(fe_ctx *c, const fe_tok *t);
static inline void fe_leave(fe_ctx *c) { c->nest--; }
bool fe_const_eval(fe_ctx *c, fe_node *e, int64_t *out);
/* ... and the integer type of the value (C++'s promotions and usual
 * arithmetic conversions: unsigned arithmetic wraps, compares and divides
 * as unsigned) */
bool fe_const_eval_kind(fe_ctx *c, fe_node *e, int64_t *out, fe_kind *kind);
int64_t fe_const_norm(int64_t v, fe_kind k); /* v converted to integer type k */

/* ---- type.c ---- */

fe_type *fe_ty(fe_kind k);                  /* shared scalar types */
fe_type *fe_ptr_to(fe_ctx *c, fe_type *base);
/* The static constant `name` of struct st, or of its bases (a nearer one first). */
const fe_tname *fe_static_constant(const fe_type *st, const char *name, size_t len); /* parse_cxx.c */
fe_type *fe_array_of(fe_ctx *c, fe_type *base, uint32_t len);
fe_type *fe_vec_of(fe_ctx *c, fe_type *base, uint32_t n, const char *name);
fe_type *fe_qualified(fe_ctx *c, fe_type *t, bool is_const, bool is_volatile);
fe_type *fe_ref_to(fe_ctx *c, fe_type *t);
bool fe_is_int(const fe_type *t);           /* bool and integers */
bool fe_is_char_array(const fe_type *t);    /* an array of 1-byte integers (a string fills one) */
bool fe_is_float(const fe_type *t);
bool fe_is_arith(const fe_type *t);
bool fe_is_signed(const fe_type *t);
bool fe_is_scalar(const fe_type *t);        /* arithmetic or pointer */
bool fe_same_type(const fe_type *a, const fe_type *b);
fe_type *fe_unqual(fe_type *t);
const char *fe_struct_base_name(const fe_type *t);
fe_type *fe_promote(fe_type *t);            /* integer promotion */
fe_type *fe_common(fe_type *a, fe_type *b); /* usual arithmetic conversions */
const char *fe_elem_name(fe_kind k);        /* "i32", "f32", ... ("" for others) */
void fe_type_str(const fe_type *t, char *out, size_t cap);
/* The leftmost token of an expression (binary nodes carry their operator's). */
fe_tok *fe_leftmost(fe_node *e);
void fe_struct_layout(fe_type *t);
/* dim3 and the uint3 vector: one layout, three u32, copied into each other
 * as CUDA's conversions do (dim3 d = threadIdx; uint3 u = blockDim;). */
bool fe_dim3_pair(const fe_type *a, const fe_type *b);
/* The member a union is initialized through when nothing names one
 * (U u; U u{}): the one with a default member initializer, else the first. */
int fe_union_default(const fe_type *t);
/* C's type of integer literal e (N_INT): its own (a char, an enumerator),
 * else by its suffixes and value (a hex or octal one may be unsigned). */
fe_kind fe_literal_kind(const fe_node *e);
/* The elements of braced initializer `init` of struct or union t, one
 * slot per member in order, NULL where none is given: designators
 * (`.m = v`) place an element, a plain one takes the member after the
 * previous element's (C's rules). NULL after reporting an error (an
 * unknown or repeated member, too many elements). */
fe_node **fe_init_slots(fe_ctx *c, const fe_type *t, const fe_node *init);
/* An error at the first designated element of init, an initializer of a
 * type with no members (an array, a scalar); false if there is none. */
bool fe_no_designators(fe_ctx *c, const fe_node *init);
/* Does braced initializer `init` (its slots from fe_init_slots) set member
 * i of t? Every member of a struct (a default initializer or zero where no
 * element names it); one member of a union: the element's, else (U u =
 * {}) its default. */
bool fe_init_sets(const fe_type *t, const struct fe_node *init, struct fe_node *const *slots, int i);
/* The member `name` of struct t, also inside its anonymous unions and
 * structs; *offset: its offset in t. NULL if there is none. */
const fe_member *fe_find_member(const fe_type *t, const char *name, size_t len, uint32_t *offset);
/* C++ lookup of data member `name` in struct t: its own members (inside
 * anonymous ones too) hide its bases' (each base looked up the same way);
 * found in two bases, *ambiguous and NULL. */
const fe_member *fe_member_lookup(const fe_type *t, const char *name, size_t len, uint32_t *offset,
                                  bool *ambiguous);
/* Is struct b a base class of struct d (directly or not; not d itself)?
 * *offset: where its subobject is in d; *ambiguous: d has two of them. */
bool fe_base_of(const fe_type *d, const fe_type *b, uint32_t *offset, bool *ambiguous);
/* An empty struct (no data members, only empty bases): a base of this type takes no space. */
bool fe_is_empty_struct(const fe_type *t);
fe_type *fe_no_ref(fe_ctx *c, fe_type *t);  /* t without its reference */
/* The cooperative-groups type of this kind (tile: n lanes; operators: element type elem). */
fe_type *fe_cg_type(fe_ctx *c, int kind, uint32_t n, fe_type *elem);
/* thread_block_tile<n> partitioned from a tile of `parent` units (0: the block). */
fe_type *fe_cg_tile(fe_ctx *c, uint32_t n, uint32_t parent);
/* The placeholder type of an `auto` parameter of a lambda (the argument's type at each call). */
fe_type *fe_auto_type(void);
fe_type *fe_decltype_of(fe_ctx *c, struct fe_node *e); /* the placeholder of decltype(e) */
bool fe_has_decltype(const fe_type *t);                /* t is or wraps (pointer, array) one */
bool fe_is_auto(const fe_type *t); /* that placeholder, qualified or a reference */
/* The diagnostic for a CUDA name outside the subset (__half2, tex2D, wmma, clock64 ...), or NULL. */
const char *fe_unsupported_name(const char *name, size_t len);

#endif
