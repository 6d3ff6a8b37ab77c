/*
 * lower.h - state shared by the lowering files (lower.c: statements,
 * kernels, inlining; lower_expr.c: expressions; lower_lambda.c: lambda
 * captures; lower_class.c: base classes; builtins.c: CUDA builtin
 * functions and variables). Values live in typed virtual registers of the
 * .cbs text; lvalues are a register variable, an element of a line
 * register, or an address in one of the four memory spaces.
 */
#ifndef CVM_FE_LOWER_H
#define CVM_FE_LOWER_H

#include "fe.h"

enum { SP_NONE, SP_GLOBAL, SP_SHARED, SP_LOCAL, SP_CONST };
enum { LV_NONE, LV_REG, LV_MEM, LV_ELEM };

typedef struct fe_val {
    fe_type *ty;
    int reg;      /* value (LV_NONE/LV_REG/LV_ELEM: the line register) or address (LV_MEM) */
    int lv;
    int elem;     /* LV_ELEM: element index */
    bool vol;     /* volatile memory access */
    unsigned char is_null; /* the literal 0, NULL or nullptr: also a null pointer constant (nullptr:
                              FE_NULLPTR) */
    bool fill;    /* fe_zero: a default zero, which converts to a vector type too */
    bool temp;    /* LV_MEM: a temporary (a prvalue: S(1), f()'s result), which a new object
                     takes over without its copy constructor, as C++17 elides the copy */
} fe_val;

/* fe_val.is_null of `nullptr` itself: as an argument a pointer, never a number (fe_arg_type) */
#define FE_NULLPTR 2

typedef struct fe_var {
    const char *name;
    fe_type *ty;
    fe_val val;   /* what the name denotes: a register lvalue or an address (LV_MEM) */
    int mem;      /* memory not yet addressed: 0, or MEM_* (address made at each use) */
    uint32_t offset;
    const char *sym;
    fe_node *decl; /* a module-scope __shared__ variable's declaration: its
                    * place in each kernel's shared memory, given at first use */
    bool is_member; /* a data member bound for a member function's body (reached through `this`) */
    bool ambiguous; /* a member name two base classes give (lower.c bind_members): an error where used */
    bool by_copy;   /* a lambda's by-value capture (lower_lambda.c): a copy of the closure copies it */
    struct fe_var *next;
} fe_var;

enum { MEM_NONE, MEM_SHARED, MEM_DYNSHARED, MEM_LOCAL, MEM_GSYM, MEM_CSYM };

typedef struct fe_frame {
    fe_node *fn;
    int ret_reg;        /* -1 for void; struct results: address register */
    fe_type *ret_ty;
    int blocks;         /* block depth inside the function's block */
    bool ret_ref;       /* returns a reference: ret_reg holds its address */
    bool deduce;        /* a lambda without `-> T`: the first return sets ret_ty and ret_reg */
    bool deduced;       /* ... and it has: every later return must have that type */
    bool ret_spaced;    /* a pointer or reference return has set ret_reg's memory space */
    const fe_tok *site; /* the call inlined here */
    struct fe_frame *up;
} fe_frame;

typedef struct fe_lower {
    fe_ctx *c;
    fe_buf *out;        /* module text */
    fe_buf body, regs;  /* current kernel */
    uint32_t *rtypes;   /* register types: kind | lanes << 8 | space << 16 */
    size_t *open_at;    /* per register: a pointer variable declared without a value (`int *p;`):
                         * 1 + the body's length after its declaration, whose first assignment
                         * picks the space while no instruction has named it since
                         * (fe_adopt_space); else 0 */
    uint32_t nregs, capregs;
    uint32_t ninsn;
    uint32_t var_at;    /* ninsn + 1 when the last .var follows the last instruction */
    uint32_t shared_size, local_size;
    bool uses_plane, uses_f64, uses_f16;
    bool reads_warp_size;  /* warpSize: 32 unless the launch says otherwise (.plane_width 32 hint) */
    bool explicit_cast; /* fe_convert for a cast: a pointer may change its pointee type */
    bool reinterpret;   /* ... a reinterpret_cast: the address kept (no move to or from a base) */
    bool ctor_conv;     /* overload resolution may build a struct argument by a converting
                           constructor: only after everything else (templates, builtins) fails */
    const char *kernel_ns;       /* the namespace of the kernel being lowered */
    const char *init_ns;         /* a default member initializer's struct's namespace, while lowered */
    const struct fe_frame *init_frame; /* ... in this frame (calls it makes have their own) */
    const fe_node *ctor_members; /* construct_at: the constructor fe_call_fn inlines next
                                    initializes the members first (ctor_body) */
    fe_var *vars, *globals;
    fe_frame *frame;
    int blocks;         /* open `block` constructs */
    int depth;          /* indentation */
    int constructs;     /* if/loop/block/switch constructs open in the emitted code */
    uint64_t sym_bytes[2]; /* __device__ and __constant__ variables' bytes so far (with alignment) */
    bool too_deep;      /* ... once more than the bytecode's CVM_BC_MAX_DEPTH (reported by a statement) */
    uint32_t loc_file, loc_line, loc_col;
    struct { fe_node *decl; uint32_t offset; } shared[64];
    int nshared;
    int loops, switches;   /* enclosing loops and switches in the current function */
    fe_var *scope;         /* L->vars at the start of the innermost block (redefinitions) */
    /* the innermost switch on a 64-bit value: its case values, each
     * lowered as its index in this list (NULL: a 32-bit switch) */
    const int64_t *sw_vals;
    int sw_n;
    const char *taken[64]; /* locals whose address is taken (&x): kept in local memory */
    int ntaken;
    /* the template whose value parameters ct_mask (bit i: parameter i) the
     * kernel being lowered takes as comptime parameters; NULL: none */
    const fe_template *ct_tmpl;
    unsigned ct_mask;
    const char *emitted[64]; /* comptime kernels written so far (one per template) */
    int nemitted;
    char tnames[4][32]; /* fe_tname_of's texts, rotating: several per instruction line (per compile,
                           so compiles on several threads do not share them) */
    unsigned tname_next;
} fe_lower;

#define RT(kind, lanes, space) ((uint32_t)(kind) | ((uint32_t)(lanes) << 8) | ((uint32_t)(space) << 16))

/* lower.c */
int fe_reg(fe_lower *L, uint32_t rtype);
uint32_t fe_rtype_of(fe_lower *L, fe_type *t, int space);
bool fe_adopt_space(fe_lower *L, int reg, int from);
fe_val fe_by_conversion(fe_lower *L, fe_val v, const fe_type *other, const fe_tok *at); /* lower_expr.c */
fe_val fe_null_test(fe_lower *L, fe_val p, bool eq, const fe_tok *at); /* p == 0 (eq) or p != 0 */
void fe_emit(fe_lower *L, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
void fe_loc(fe_lower *L, const fe_tok *t);
const char *fe_tname_of(fe_lower *L, int reg); /* the register's .cbs type */
int fe_space_of(fe_lower *L, int reg);
fe_val fe_call_user(fe_lower *L, fe_node *call, fe_node *fn);
fe_node *fe_find_func(fe_lower *L, fe_node *call, const char *name, fe_val *args, int nargs);
fe_val fe_call_fn(fe_lower *L, const fe_tok *at, fe_node *fn, const fe_val *obj, fe_val *args, int nargs);
bool fe_call_method(fe_lower *L, const fe_tok *at, fe_val obj, const char *name, fe_val *args, int n,
                    fe_val *out);
bool fe_call_operator(fe_lower *L, const fe_tok *at, const char *op, fe_val *args, int n, fe_val *out);
bool fe_call_static(fe_lower *L, const fe_tok *at, fe_type *st, const char *name, fe_val *args, int n,
                    fe_val *out);
fe_val fe_construct(fe_lower *L, fe_type *t, fe_node *args, const fe_tok *at);
/* lower_init.c: a braced list or an expression stored into memory at addr
 * of type t (what a list leaves out value-initialized, braces elided as
 * in C); the value of a scalar's initializer (a one-element list too). */
void fe_init_mem(fe_lower *L, fe_val addr, fe_type *t, fe_node *init);
void fe_init_member(fe_lower *L, fe_val obj, fe_type *st, const fe_member *m, fe_val addr);
void fe_copy_construct(fe_lower *L, fe_val dst, fe_val src, fe_type *t, const fe_tok *at);
void fe_default_member(fe_lower *L, fe_val obj, fe_type *st, const fe_member *m, const fe_tok *at);
fe_val fe_scalar_init(fe_lower *L, fe_type *t, fe_node *init);
/* Does default-initializing a t run code (a constructor or a default
 * member initializer inside)? fe_default_init runs it on the object at addr. */
bool fe_has_ctor(fe_type *t);
void fe_default_init(fe_lower *L, fe_val addr, fe_type *t, const fe_tok *at);
/* The constructor of struct t converting a value of type `from`, or NULL. */
fe_node *fe_converting_ctor(fe_type *from, fe_type *t);
bool fe_converts_to(fe_type *from, fe_type *t);
/* lower.c, for lower_init.c: overload facts and local memory. */
bool fe_params_match(fe_node *fn, int nargs);
int fe_arg_score(fe_type *at, fe_type *pt);
/* How well an argument fits a parameter, ordered as C++ ranks them: an
 * exact match, an `auto` parameter (exact, but a plain function fitting
 * exactly wins), a promotion, a base or adding const, then conversions.
 * The fits are summed over the arguments with FE_FIT_CROSS counted as
 * FE_FIT_CONVERT (fe_fit_summed: C++ ranks both alike), so where C++
 * finds one candidate at least as good in every argument and better in
 * one, its sum is the largest too; where C++ finds the call ambiguous,
 * fewer int <-> floating conversions break the tie (fe_fit_summed counts
 * them), then the rest (docs/cuda.md). The steps are 2 apart so a defined
 * body's 1 only breaks ties (overload_score). */
enum {
    FE_FIT_USER = 0,    /* a conversion operator or converting constructor; dropping const */
    FE_FIT_CROSS = 2,   /* int <-> floating, pointer conversions */
    FE_FIT_CONVERT = 4, /* within integers or within floating types; an array to void * */
    FE_FIT_PROMOTE = 6, /* bool/char/short to int, float to double; derived to base; adding const */
    FE_FIT_AUTO = 7,
    FE_FIT_EXACT = 8
};

int fe_arg_score_conv(fe_type *at, fe_type *pt, bool conv); /* conv: by a converting constructor too */
/* A fit as it counts in a sum: FE_FIT_CROSS as FE_FIT_CONVERT, counted in
 * *cross (if not NULL), whose fewer breaks a tie of sums. */
int fe_fit_summed(int fit, int *cross);
bool fe_in_memory(fe_type *t);
/* Builds struct t at dst from v of another type through t's converting
 * constructor (V2 q = 3.0f;); false, nothing emitted, if it has none. */
bool fe_construct_from(fe_lower *L, fe_val dst, fe_type *t, fe_val v, const fe_tok *at);
/* A temporary of type t in local memory (its address, LV_MEM). */
fe_val fe_local_temp(fe_lower *L, fe_type *t);
/* Does default-initializing a t run code (default member initializers, a
 * default constructor with initializers or statements, anywhere inside)? */
bool fe_nonempty_default(fe_type *t);
/* e as an lvalue: fe_gen, except that c ? a : b of memory lvalues is the
 * address of either (a reference returned or bound to it). */
fe_val fe_lvalue(fe_lower *L, fe_node *e);
/* Struct st's member function template `name`, or NULL. */
fe_template *fe_member_template(const fe_type *st, const char *name);
/* v as an object of struct t: v itself, or a temporary converted from it. */
fe_val fe_struct_value(fe_lower *L, fe_val v, fe_type *t, const fe_tok *at);
fe_type *fe_resolve_decltype(fe_lower *L, fe_type *t); /* decltype(e) placeholders replaced */

/* lower_class.c: base classes (struct D : B) */
bool fe_derives(const fe_type *d, const fe_type *b); /* b is a base class of d (not d itself) */
/* Derivations from struct d to its base b: 0 for d itself, 1 for a direct
 * base ...; -1 when b is no base (overloads prefer the nearer base). */
int fe_base_depth(const fe_type *d, const fe_type *b);
/* Object v (a struct in memory) as its subobject of base class b (v itself
 * when v is a b): true; false, v unchanged, when b is no base of its type. */
bool fe_to_base(fe_lower *L, fe_val *v, fe_type *b, const fe_tok *at);
/* v as its subobject of type t when t is a base of v's struct, else v as it is. */
fe_val fe_as_base(fe_lower *L, fe_val v, fe_type *t, const fe_tok *at);
/* Pointer p to a struct as pointer type `to`: the address moved to the base
 * subobject (D * to B *) or back to the derived object (static_cast<D *>),
 * a null pointer kept null; unchanged when the structs are not related. */
fe_val fe_ptr_to_base(fe_lower *L, fe_val p, fe_type *to, const fe_tok *at);
/* Object v of a base class of struct `to` as the `to` object holding it
 * (static_cast<D &>(b)): true; false, v unchanged, when they are not related. */
bool fe_ref_to_derived(fe_lower *L, fe_val *v, fe_type *to, const fe_tok *at);
/* The struct that declares member function (or member function template)
 * `name` for lookup in struct t: t, or the base nearest to it; NULL when
 * none does (operator= is never a base's: t has its own), *ambiguous when
 * two bases do. *off: its subobject's offset in t. */
const fe_type *fe_method_scope(const fe_type *t, const char *name, uint32_t *off, bool *ambiguous);
/* Member function `name` looked up in struct *st: when a base declares it
 * (and *st does not), *st becomes that base and *obj (if given) its
 * subobject; false after reporting an ambiguous name. */
bool fe_method_owner(fe_lower *L, fe_val *obj, fe_type **st, const char *name, const fe_tok *at);
/* dst = src of struct type t (both objects in memory) without an
 * operator= of t's own: base by base and member by member, each by its
 * user operator= where it has one (C++'s implicit copy assignment), else
 * its bytes. */
void fe_assign_struct(fe_lower *L, fe_val dst, fe_val src, fe_type *t, const fe_tok *at);
/* The direct base of t named `name` (its struct's name, or its template's: Base of Base<T>), or NULL. */
fe_type *fe_base_named(const fe_type *t, const char *name);

/* lower_expr.c */
fe_val fe_gen(fe_lower *L, fe_node *e);
fe_val fe_call_expr(fe_lower *L, fe_node *e); /* lower_call.c: f(args), obj.f(args), S::f(args) */          /* value or lvalue */
fe_val fe_rvalue(fe_lower *L, fe_node *e);       /* loaded value (arrays decay) */
fe_val fe_load(fe_lower *L, fe_val v);
void fe_store(fe_lower *L, fe_val dst, fe_val v, const fe_tok *at);
fe_val fe_convert(fe_lower *L, fe_val v, fe_type *to, const fe_tok *at);
bool fe_bind_converted(fe_lower *L, fe_val *v, fe_type *rt, const fe_tok *at);
void fe_stmt(fe_lower *L, fe_node *s);            /* one statement */
void fe_switch_stmt(fe_lower *L, fe_node *s);     /* switch (lower_switch.c) */
fe_val fe_cond_bool(fe_lower *L, fe_node *e);    /* expression as a bool register */
fe_val fe_truth(fe_lower *L, fe_val v, const fe_tok *at); /* loaded value as a bool register */
/* The string literal that initializes char array t, "abc" or {"abc"}; else NULL. */
const fe_node *fe_string_init(const fe_type *t, const fe_node *init);
/* A char array t from the string literal init: it fits with its NUL and
 * holds no other NUL (else an error). */
bool fe_string_fits(fe_ctx *c, const fe_type *t, const fe_node *init);
fe_val fe_const_int(fe_lower *L, fe_kind k, int64_t v);
/* A value (not an lvalue) of type t in register reg. */
static inline fe_val fe_rv(fe_type *t, int reg) { return (fe_val){t, reg, LV_NONE, 0, false, false, false, false}; }
/* What an expression that reported an error gives (an int 0). */
static inline fe_val fe_bad(fe_lower *L) { return fe_const_int(L, TY_I32, 0); }
/* The zero a declaration without initializer, `x{}` or a braced list's
 * missing elements store: an int 0 that fe_convert also splats to a
 * vector (where a user's `float4 v = 0` is an error, as in CUDA). */
fe_val fe_zero(fe_lower *L);
/* obj's member operator template `name` ("operator*") for args, deduced: false
 * when obj's struct has none. */
bool fe_member_operator_template(fe_lower *L, const fe_tok *at, fe_val obj, const char *name, fe_val *args,
                                 int n, fe_val *out);
/* A vector of type t (TY_VEC) from up to t->len element expressions, the
 * rest zero: `float4 v = {a, b}`, `float4{a, b, c, d}`. */
fe_val fe_vec_build(fe_lower *L, fe_type *t, fe_node *args, const fe_tok *at);
/* The value of type t a braced list gives (`x = {a, b}`): a register value,
 * or an aggregate in a local temporary. */
fe_val fe_initlist_value(fe_lower *L, fe_type *t, fe_node *init);
/* The value of call argument `arg` for parameter `param` (NULL when not
 * known): a braced list makes a value of the parameter's type. */
fe_val fe_arg_value(fe_lower *L, fe_node *arg, const fe_node *param);
fe_val fe_const_float(fe_lower *L, fe_kind k, double v);
fe_val fe_ptr_add(fe_lower *L, fe_val p, fe_val idx, int sign, const fe_tok *at);
fe_val fe_addr_of_var(fe_lower *L, fe_var *v);
uint32_t fe_shared_offset(fe_lower *L, fe_node *d);
fe_var *fe_lookup(fe_lower *L, const char *name);
fe_var *fe_capture_env(fe_lower *L, fe_node *lambda_fn); /* lower_lambda.c */
fe_type *fe_closure_copy(fe_lower *L, fe_type *t, const fe_tok *at);
/* lower_tmpl.c: why a condition that does not fold is no constant (*at: where), or NULL */
const char *fe_not_constant(fe_lower *L, const fe_node *cond, const fe_tok **at);
fe_type *fe_closure_type(fe_lower *L, fe_type *lambda);
fe_type *fe_closure_of(fe_lower *L, fe_type *param, fe_type *arg);
const char *fe_closures_apart(const fe_type *a, const fe_type *b);
fe_type *fe_arg_type(fe_lower *L, fe_val v); /* lower_expr.c */
bool fe_pure(fe_lower *L, fe_node *e);
fe_type *fe_type_of(fe_lower *L, fe_node *e);    /* type without code (sizeof expr) */
fe_type *fe_type_of_arg(fe_lower *L, fe_node *e, bool qualified, bool *rvalue);
void fe_copy_mem(fe_lower *L, fe_val dst, fe_val src, fe_type *t);

/* builtins.c: true when `name` is a builtin call (handled, result in *out) */
bool fe_builtin_call(fe_lower *L, fe_node *call, const char *name, fe_val *out);
bool fe_builtin_member(fe_lower *L, fe_node *e, fe_val *out); /* threadIdx.x ... */
bool fe_builtin_ident(fe_lower *L, fe_node *e, fe_val *out);  /* warpSize, INFINITY ... */
/* cg.c: obj.f(args) on a cooperative-groups object (obj as fe_gen made it), and
 * this_thread_block, tiled_partition<N>, cg::reduce, cg::sync */
bool fe_builtin_method(fe_lower *L, fe_node *call, fe_val obj, fe_val *out);
bool fe_cg_call(fe_lower *L, fe_node *call, const char *name, fe_val *out);

/* half2.c: __half2 / __nv_bfloat162 (lines of two f16/bf16) intrinsics and operators */
bool fe_is_half_pair(const fe_type *t);
bool fe_half2_call(fe_lower *L, fe_node *call, const char *name, fe_val *out);
fe_val fe_half2_binop(fe_lower *L, int op, fe_val a, fe_val b, const fe_tok *at);
fe_val fe_half2_neg(fe_lower *L, fe_val a);

/* lower_module.c: a module-scope variable (directive, initializer bytes) */
void fe_module_var(fe_lower *L, fe_node *d);

/* lower.c: one kernel (its .kernel ... .end text) */
void fe_lower_kernel(fe_lower *L, fe_node *fn, const char *name);

/* lower_tmpl.c: entry: the module's variables, kernels and template instances */
cvm_status fe_lower_module(fe_ctx *c, const char *const *kernels, uint32_t nkernels, fe_buf *out);

#endif
