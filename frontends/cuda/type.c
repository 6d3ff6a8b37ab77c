/*
 * type.c - C types of the CUDA frontend: sizes (LP64, CUDA ABI struct
 * layout), qualifiers, integer promotion and the usual arithmetic
 * conversions. __half and __nv_bfloat16 rank below float: mixing them with
 * float computes in float, as the CUDA headers' conversions do.
 */
#include "fe.h"
#include "parse.h"

#include <stdio.h>
#include <string.h>

/* Designated fields: a new member of fe_type needs no edit here. */
#define SCALAR(k, sz, al) [k] = {.kind = k, .size = sz, .align = al, .complete = true}
static fe_type scalars[] = {
    SCALAR(TY_VOID, 1, 1),
    SCALAR(TY_BOOL, 1, 1),
    SCALAR(TY_I8, 1, 1),
    SCALAR(TY_I16, 2, 2),
    SCALAR(TY_I32, 4, 4),
    SCALAR(TY_I64, 8, 8),
    SCALAR(TY_U8, 1, 1),
    SCALAR(TY_U16, 2, 2),
    SCALAR(TY_U32, 4, 4),
    SCALAR(TY_U64, 8, 8),
    SCALAR(TY_F16, 2, 2),
    SCALAR(TY_BF16, 2, 2),
    SCALAR(TY_F32, 4, 4),
    SCALAR(TY_F64, 8, 8),
    SCALAR(TY_DIM3, 12, 4),
};
#undef SCALAR

fe_type *fe_ty(fe_kind k) { return &scalars[k]; }

fe_type *fe_ptr_to(fe_ctx *c, fe_type *base)
{
    fe_type *t = fe_alloc(c, sizeof *t);
    if (!t)
        return fe_ty(TY_I32);
    t->kind = TY_PTR;
    t->base = base;
    t->size = t->align = 8;
    t->complete = true;
    return t;
}

fe_type *fe_array_of(fe_ctx *c, fe_type *base, uint32_t len)
{
    fe_type *t = fe_alloc(c, sizeof *t);
    if (!t)
        return fe_ty(TY_I32);
    t->kind = TY_ARRAY;
    t->base = base;
    t->len = len;
    uint64_t size = (uint64_t)base->size * len;
    t->size = size > 0x7fffffff ? 0x7fffffff : (uint32_t)size;
    t->align = base->align;
    t->complete = true;
    return t;
}

fe_type *fe_vec_of(fe_ctx *c, fe_type *base, uint32_t n, const char *name)
{
    fe_type *t = fe_alloc(c, sizeof *t);
    if (!t)
        return fe_ty(TY_I32);
    t->kind = TY_VEC;
    t->base = base;
    t->len = n;
    t->size = base->size * n;
    /* CUDA's vector_types.h: float2 8, float4 16, double2 16, and 16 for
     * the 32-byte double4, longlong4, ulonglong4 and long4 too */
    t->align = t->size < 16 ? t->size : 16;
    t->name = name;
    t->complete = true;
    return t;
}

/* A copy of t; copies of a struct still being defined are completed with it. */
static fe_type *copy_type(fe_ctx *c, fe_type *t)
{
    fe_type *q = fe_alloc(c, sizeof *q);
    if (!q)
        return NULL;
    *q = *t;
    q->copies = q->next_copy = NULL;
    if (t->kind == TY_STRUCT) {
        fe_type *root = t->origin ? t->origin : t;
        q->origin = root;
        if (!root->complete) {
            q->next_copy = root->copies;
            root->copies = q;
        }
    }
    return q;
}

fe_type *fe_qualified(fe_ctx *c, fe_type *t, bool is_const, bool is_volatile)
{
    if (t->is_const == is_const && t->is_volatile == is_volatile)
        return t;
    fe_type *q = copy_type(c, t);
    if (!q)
        return t;
    q->is_const = is_const;
    q->is_volatile = is_volatile;
    return q;
}

fe_type *fe_ref_to(fe_ctx *c, fe_type *t)
{
    fe_type *q = copy_type(c, t);
    if (!q)
        return t;
    q->is_ref = true;
    return q;
}

fe_type *fe_no_ref(fe_ctx *c, fe_type *t)
{
    if (!t->is_ref)
        return t;
    fe_type *q = copy_type(c, t);
    if (!q)
        return t;
    q->is_ref = false;
    return q;
}

fe_type *fe_unqual(fe_type *t)
{
    if (t->enum_id)
        return (fe_type *)t->enum_id; /* made unqualified (fe_p_enum_spec) */
    if (t->kind <= TY_F64 || t->kind == TY_DIM3)
        return fe_ty(t->kind);
    return t;
}

bool fe_is_int(const fe_type *t) { return t->kind >= TY_BOOL && t->kind <= TY_U64; }
bool fe_is_char_array(const fe_type *t)
{
    return t->kind == TY_ARRAY && t->base->size == 1 && fe_is_int(t->base);
}
bool fe_is_float(const fe_type *t) { return t->kind >= TY_F16 && t->kind <= TY_F64; }
bool fe_is_arith(const fe_type *t) { return fe_is_int(t) || fe_is_float(t); }
bool fe_is_signed(const fe_type *t) { return t->kind >= TY_I8 && t->kind <= TY_I64; }
bool fe_is_scalar(const fe_type *t) { return fe_is_arith(t) || t->kind == TY_PTR; }

/* The name a struct's constructors have: a template instance's is the
 * template's (Box, of Box<float>). */
const char *fe_struct_base_name(const fe_type *t)
{
    const fe_type *root = t->origin ? t->origin : t;
    return root->tmpl ? root->tmpl->name : root->name;
}

bool fe_same_type(const fe_type *a, const fe_type *b)
{
    if (a == b)
        return true;
    if (a->kind != b->kind)
        return false;
    switch (a->kind) {
    case TY_PTR:
        return fe_same_type(a->base, b->base);
    case TY_ARRAY:
        return a->len == b->len && fe_same_type(a->base, b->base);
    case TY_VEC:
        return a->len == b->len && fe_same_type(a->base, b->base);
    case TY_STRUCT:
        if (a->cg == CG_TILE && b->cg == CG_TILE) /* tiles of one size, whatever their parent */
            return a->len == b->len;
        return (a->origin ? a->origin : a) == (b->origin ? b->origin : b) ||
               (a->members == b->members && a->name == b->name && a->members);
    default:
        return true;
    }
}

fe_type *fe_promote(fe_type *t)
{
    switch (t->kind) {
    case TY_BOOL: case TY_I8: case TY_I16: case TY_U8: case TY_U16:
        return fe_ty(TY_I32);
    default:
        return fe_unqual(t);
    }
}

static int rank(fe_kind k)
{
    switch (k) {
    case TY_I32: case TY_U32: return 1;
    case TY_I64: case TY_U64: return 2;
    default: return 0;
    }
}

fe_type *fe_common(fe_type *a, fe_type *b)
{
    if (a->kind == TY_F64 || b->kind == TY_F64)
        return fe_ty(TY_F64);
    if (a->kind == TY_F32 || b->kind == TY_F32)
        return fe_ty(TY_F32);
    if (fe_is_float(a) && fe_is_float(b))
        return a->kind == b->kind ? fe_ty(a->kind) : fe_ty(TY_F32);
    if (fe_is_float(a))
        return fe_ty(a->kind);
    if (fe_is_float(b))
        return fe_ty(b->kind);
    a = fe_promote(a);
    b = fe_promote(b);
    if (a->kind == b->kind)
        return a;
    bool sa = fe_is_signed(a), sb = fe_is_signed(b);
    if (sa == sb)
        return rank(a->kind) >= rank(b->kind) ? a : b;
    fe_type *u = sa ? b : a, *s = sa ? a : b;
    if (rank(u->kind) >= rank(s->kind))
        return u;
    if (s->size > u->size)
        return s;
    return fe_ty(s->kind == TY_I64 ? TY_U64 : TY_U32);
}

const char *fe_elem_name(fe_kind k)
{
    static const char *const names[] = {
        [TY_BOOL] = "bool", [TY_I8] = "i8", [TY_I16] = "i16", [TY_I32] = "i32", [TY_I64] = "i64",
        [TY_U8] = "u8", [TY_U16] = "u16", [TY_U32] = "u32", [TY_U64] = "u64", [TY_F16] = "f16",
        [TY_BF16] = "bf16", [TY_F32] = "f32", [TY_F64] = "f64",
    };
    return k <= TY_F64 && names[k] ? names[k] : "";
}

void fe_type_str(const fe_type *t, char *out, size_t cap)
{
    static const char *const names[] = {
        [TY_VOID] = "void", [TY_BOOL] = "bool", [TY_I8] = "char", [TY_I16] = "short",
        [TY_I32] = "int", [TY_I64] = "long", [TY_U8] = "unsigned char",
        [TY_U16] = "unsigned short", [TY_U32] = "unsigned int", [TY_U64] = "unsigned long",
        [TY_F16] = "__half", [TY_BF16] = "__nv_bfloat16", [TY_F32] = "float", [TY_F64] = "double",
        [TY_DIM3] = "dim3",
    };
    char inner[200];
    switch (t->kind) {
    case TY_PTR:
        fe_type_str(t->base, inner, sizeof inner);
        snprintf(out, cap, "%s *", inner);
        return;
    case TY_ARRAY:
        fe_type_str(t->base, inner, sizeof inner);
        snprintf(out, cap, "%s[%u]", inner, t->len);
        return;
    case TY_VEC:
    case TY_STRUCT:
        snprintf(out, cap, "%s", t->name ? t->name : "struct");
        return;
    default:
        snprintf(out, cap, "%s", names[t->kind]);
        return;
    }
}

int fe_union_default(const fe_type *t)
{
    int i = 0;
    for (const fe_member *m = t->members; m; m = m->next, i++)
        if (m->init)
            return i;
    return 0;
}

fe_node **fe_init_slots(fe_ctx *c, const fe_type *t, const fe_node *init)
{
    uint32_t n = 0, next = 0;
    for (const fe_member *m = t->members; m; m = m->next)
        n++;
    fe_node **slots = fe_alloc(c, (n ? n : 1) * sizeof *slots);
    if (!slots)
        return NULL;
    for (fe_node *e = init->args; e; e = e->next) {
        uint32_t i = next;
        const fe_member *m = t->members;
        if (e->desig) {
            for (i = 0; m && strcmp(m->name, e->desig); m = m->next, i++)
                ;
            uint32_t off;
            if (!m) {
                bool in_base = false;
                for (const fe_member *b = t->members; b; b = b->next)
                    in_base |= b->is_base && fe_find_member(b->ty, e->desig, strlen(e->desig), &off);
                fe_error(c, e->desig_tok, CVM_SYNTAX, "no member named '%s' in '%s'%s", e->desig, t->name,
                         in_base ? " to designate (it is a base class's member: initialize the base with a "
                                   "nested list, {{...}, ...}, or assign it)"
                         : fe_find_member(t, e->desig, strlen(e->desig), &off)
                             ? " to designate (it is inside an anonymous union or struct: designate that with "
                               "a nested list, or assign it)" : "");
                return NULL;
            }
        } else {
            for (uint32_t k = 0; m && k < i; k++)
                m = m->next;
        }
        if (!m || (t->is_union && e != init->args)) {
            fe_error(c, e->desig ? e->desig_tok : e->tok, CVM_SYNTAX, t->is_union ? "a union's initializer sets one member"
                                                        : "too many initializers for '%s'", t->name);
            return NULL;
        }
        if (slots[i]) {
            fe_error(c, e->desig ? e->desig_tok : e->tok, CVM_SYNTAX, "member '%s' of '%s' is initialized twice", m->name, t->name);
            return NULL;
        }
        slots[i] = e;
        next = i + 1;
    }
    return slots;
}

bool fe_no_designators(fe_ctx *c, const fe_node *init)
{
    for (const fe_node *e = init->args; e; e = e->next)
        if (e->desig) {
            fe_error(c, e->desig_tok, CVM_SYNTAX, "designator '.%s' in the initializer of a type without members",
                     e->desig);
            return false;
        }
    return true;
}

bool fe_init_sets(const fe_type *t, const fe_node *init, fe_node *const *slots, int i)
{
    if (!t->is_union)
        return true;
    return init->args ? slots[i] != NULL : i == fe_union_default(t);
}

bool fe_dim3_pair(const fe_type *a, const fe_type *b)
{
    const fe_type *s = a->kind == TY_DIM3 ? b : b->kind == TY_DIM3 ? a : NULL;
    return s && s->kind == TY_STRUCT && s->name && strcmp(s->name, "uint3") == 0;
}

const fe_member *fe_find_member(const fe_type *t, const char *name, size_t len, uint32_t *offset)
{
    bool ambiguous;
    return fe_member_lookup(t, name, len, offset, &ambiguous);
}

const fe_member *fe_member_lookup(const fe_type *t, const char *name, size_t len, uint32_t *offset,
                                  bool *ambiguous)
{
    *ambiguous = false;
    for (const fe_member *m = t->kind == TY_STRUCT ? t->members : NULL; m; m = m->next) {
        if (m->is_base)
            continue;
        if (m->anon) {
            uint32_t inner = 0;
            const fe_member *f = fe_find_member(m->ty, name, len, &inner);
            if (f) {
                *offset = m->offset + inner;
                return f;
            }
        } else if (strlen(m->name) == len && memcmp(m->name, name, len) == 0) {
            *offset = m->offset;
            return m;
        }
    }
    const fe_member *found = NULL;
    for (const fe_member *m = t->kind == TY_STRUCT ? t->members : NULL; m; m = m->next) {
        uint32_t inner = 0;
        const fe_member *f = m->is_base ? fe_member_lookup(m->ty, name, len, &inner, ambiguous) : NULL;
        if (*ambiguous || (f && found)) {
            *ambiguous = true;
            return NULL;
        }
        if (f) {
            found = f;
            *offset = m->offset + inner;
        }
    }
    return found;
}

bool fe_base_of(const fe_type *d, const fe_type *b, uint32_t *offset, bool *ambiguous)
{
    int n = 0;
    *ambiguous = false;
    for (const fe_member *m = d->kind == TY_STRUCT ? d->members : NULL; m; m = m->next) {
        if (!m->is_base)
            continue;
        uint32_t inner = 0;
        bool amb = false;
        if (fe_same_type(m->ty, b)) {
            n++;
            *offset = m->offset;
        } else if (fe_base_of(m->ty, b, &inner, &amb)) {
            n += amb ? 2 : 1;
            *offset = m->offset + inner;
        }
    }
    *ambiguous = n > 1;
    return n > 0;
}

bool fe_is_empty_struct(const fe_type *t)
{
    if (t->kind != TY_STRUCT || t->is_union || t->cg || t->is_lambda || !t->complete)
        return false;
    for (const fe_member *m = t->members; m; m = m->next)
        if (!m->is_base || !fe_is_empty_struct(m->ty))
            return false;
    return true;
}

/* Does a t hold an empty struct anywhere (itself, a base, a member, an element)? */
static bool holds_empty(const fe_type *t)
{
    while (t->kind == TY_ARRAY)
        t = t->base;
    if (t->kind != TY_STRUCT)
        return false;
    if (fe_is_empty_struct(t))
        return true;
    for (const fe_member *m = t->members; m; m = m->next)
        if (holds_empty(m->ty))
            return true;
    return false;
}

/* The empty subobjects of a t at offset `at` (itself if empty, its empty
 * bases, those inside its members), appended to types/offs from *n up to
 * 64: the layout keeps two of one type from sharing an address. */
static void empty_subobjects(const fe_type *t, uint32_t at, const fe_type **types, uint32_t *offs, int *n)
{
    if (!holds_empty(t))
        return;
    if (t->kind == TY_ARRAY) {
        for (uint32_t i = 0; i < t->len && *n < 64; i++)
            empty_subobjects(t->base, at + i * t->base->size, types, offs, n);
        return;
    }
    if (t->kind != TY_STRUCT || *n >= 64)
        return;
    if (fe_is_empty_struct(t)) {
        types[*n] = t;
        offs[(*n)++] = at;
    }
    for (const fe_member *m = t->members; m && *n < 64; m = m->next)
        empty_subobjects(m->ty, at + m->offset, types, offs, n);
}

/* Would a t at offset `at` put an empty subobject where one of its type already is? */
static bool empty_conflict(const fe_type *t, uint32_t at, const fe_type *const *types, const uint32_t *offs, int n)
{
    const fe_type *mine[64];
    uint32_t my_offs[64];
    int k = 0;
    empty_subobjects(t, at, mine, my_offs, &k);
    for (int i = 0; i < k; i++)
        for (int j = 0; j < n; j++)
            if (my_offs[i] == offs[j] && fe_same_type(mine[i], types[j]))
                return true;
    return false;
}

/* Is struct t not POD for the purpose of layout (Itanium ABI, as g++
 * decides it): then a derived struct reuses its tail padding. */
static bool nonpod_layout(const fe_type *t)
{
    if (t->nonpod)
        return true;
    for (const fe_member *m = t->members; m; m = m->next) {
        const fe_type *mt = m->ty;
        while (mt->kind == TY_ARRAY)
            mt = mt->base;
        if (m->is_base || m->init || (mt->kind == TY_STRUCT && mt->nonpod))
            return true;
    }
    for (const struct fe_node *f = t->methods; f; f = f->next) {
        if (f->is_ctor && !f->is_default_body)
            return true; /* a user-provided constructor */
        const fe_node *p = f->params;
        if (strcmp(f->name, "operator=") == 0 && p && !p->next && p->ty && fe_same_type(fe_unqual(p->ty), t))
            return true; /* a user copy assignment */
    }
    return false;
}

/*
 * Member offsets, size and alignment as g++ and nvcc give them (the
 * Itanium C++ ABI for classes without virtual functions): bases first, in
 * declaration order, then the members; an empty base takes no space (at
 * offset 0 unless an empty subobject of its type is there already); a
 * member after a base that is not POD for layout may sit in the base's
 * tail padding (from its dsize). Without bases this is C's layout.
 */
void fe_struct_layout(fe_type *t)
{
    uint32_t dsize = 0, end = 0, align = 1;
    const fe_type *etypes[64];
    uint32_t eoffs[64];
    int ne = 0;
    for (fe_member *m = t->members; m; m = m->next) {
        uint32_t a = m->ty->align ? m->ty->align : 1;
        if (t->is_union) {
            m->offset = 0;
            end = m->ty->size > end ? m->ty->size : end;
        } else {
            const bool empty_base = m->is_base && fe_is_empty_struct(m->ty);
            uint32_t off = empty_base ? 0 : (dsize + a - 1) / a * a;
            while (ne && empty_conflict(m->ty, off, etypes, eoffs, ne))
                off = off < dsize ? (dsize + a - 1) / a * a : off + a;
            m->offset = off;
            if (!empty_base)
                dsize = off + (m->is_base && m->ty->nonpod ? m->ty->dsize : m->ty->size);
            end = off + m->ty->size > end ? off + m->ty->size : end;
            empty_subobjects(m->ty, off, etypes, eoffs, &ne);
        }
        if (a > align)
            align = a;
    }
    t->align = t->align > align ? t->align : align; /* __align__ may raise it */
    t->size = (end + t->align - 1) / t->align * t->align;
    if (!t->size && !t->cg && !t->is_lambda)
        t->size = t->align; /* an empty struct (a functor) is one byte, as in C++ */
    t->dsize = t->is_union ? t->size : dsize;
    t->nonpod = nonpod_layout(t);
    if (!t->nonpod)
        t->dsize = t->size; /* POD: no tail padding to reuse */
    t->complete = true;
    for (fe_type *q = t->copies; q; q = q->next_copy) {
        q->members = t->members;
        q->methods = t->methods;
        q->is_union = t->is_union;
        q->size = t->size;
        q->align = t->align;
        q->dsize = t->dsize;
        q->nonpod = t->nonpod;
        q->nbases = t->nbases;
        q->complete = true;
    }
}

fe_type *fe_cg_tile(fe_ctx *c, uint32_t n, uint32_t parent)
{
    fe_type *t = fe_cg_type(c, CG_TILE, n, NULL);
    if (!parent || t->cg != CG_TILE)
        return t;
    for (fe_type *u = c->cg_types; u; u = u->cg_next)
        if (u->cg == CG_TILE && u->len == n && u->cg_parent == parent)
            return u;
    fe_type *u = fe_alloc(c, sizeof *u);
    if (!u)
        return t;
    *u = *t;
    u->cg_parent = parent;
    u->cg_next = c->cg_types;
    c->cg_types = u;
    return u;
}

fe_type *fe_cg_type(fe_ctx *c, int kind, uint32_t n, fe_type *elem)
{
    for (fe_type *t = c->cg_types; t; t = t->cg_next)
        if (t->cg == kind && t->len == n && !t->cg_parent &&
            (!elem || (t->base && fe_same_type(t->base, elem))))
            return t;
    static const char *const names[] = {
        [CG_BLOCK] = "thread_block", [CG_TILE] = "thread_block_tile", [CG_GRID] = "grid_group",
        [CG_GROUP] = "thread_group", [CG_COALESCED] = "coalesced_group",
        [CG_FAMILY] = "cooperative_groups template", [CG_PLUS] = "plus", [CG_LESS] = "less",
        [CG_GREATER] = "greater", [CG_BIT_AND] = "bit_and", [CG_BIT_OR] = "bit_or", [CG_BIT_XOR] = "bit_xor",
    };
    fe_type *t = fe_alloc(c, sizeof *t);
    if (!t)
        return fe_ty(TY_I32);
    t->kind = TY_STRUCT;
    t->cg = kind;
    t->len = n;
    t->base = elem ? fe_unqual(elem) : NULL;
    t->align = 1;
    char en[128] = "";
    if (elem)
        fe_type_str(elem, en, sizeof en);
    t->name = kind == CG_TILE ? fe_fmt(c, "thread_block_tile<%u>", n)
              : elem ? fe_fmt(c, "%s<%s>", names[kind], en) : names[kind];
    if (kind == CG_COALESCED) { /* holds the mask of the units it was made with */
        fe_member *m = fe_alloc(c, sizeof *m);
        if (m) {
            m->name = "__mask";
            m->ty = fe_ty(TY_U32);
            t->members = m;
        }
    }
    fe_struct_layout(t);
    t->cg_next = c->cg_types;
    c->cg_types = t;
    return t;
}

fe_type *fe_auto_type(void)
{
    static fe_type auto_ty = {.kind = TY_VOID, .name = "auto", .complete = true};
    return &auto_ty;
}

fe_type *fe_decltype_of(fe_ctx *c, fe_node *e)
{
    fe_type *t = fe_alloc(c, sizeof *t);
    if (!t)
        return fe_ty(TY_I32);
    t->kind = TY_VOID;
    t->name = "decltype";
    t->decltype_expr = e;
    t->complete = true;
    return t;
}

bool fe_has_decltype(const fe_type *t)
{
    while (t && (t->kind == TY_PTR || t->kind == TY_ARRAY))
        t = t->base;
    return t && t->decltype_expr;
}

bool fe_is_auto(const fe_type *t)
{
    return t && t->kind == TY_VOID && t->name && strcmp(t->name, "auto") == 0;
}

/* CUDA names outside the subset, so that a kernel using one is told so by
 * name rather than with "unknown type" or "undeclared function". */
const char *fe_unsupported_name(const char *name, size_t len)
{
    static const struct { const char *name, *msg; } tab[] = {
        {"__heq2", "paired-half comparisons (__heq2) are not supported in kernels; compare the halves"},
        {"__hne2", "paired-half comparisons (__hne2) are not supported in kernels; compare the halves"},
        {"__hlt2", "paired-half comparisons (__hlt2) are not supported in kernels; compare the halves"},
        {"__hle2", "paired-half comparisons (__hle2) are not supported in kernels; compare the halves"},
        {"__hgt2", "paired-half comparisons (__hgt2) are not supported in kernels; compare the halves"},
        {"__hge2", "paired-half comparisons (__hge2) are not supported in kernels; compare the halves"},
        {"__hbeq2", "paired-half comparisons (__hbeq2) are not supported in kernels; compare the halves"},
        {"__hbne2", "paired-half comparisons (__hbne2) are not supported in kernels; compare the halves"},
        {"__hblt2", "paired-half comparisons (__hblt2) are not supported in kernels; compare the halves"},
        {"__hble2", "paired-half comparisons (__hble2) are not supported in kernels; compare the halves"},
        {"__hbgt2", "paired-half comparisons (__hbgt2) are not supported in kernels; compare the halves"},
        {"__hbge2", "paired-half comparisons (__hbge2) are not supported in kernels; compare the halves"},
        {"__hisnan2", "paired-half comparisons (__hisnan2) are not supported in kernels; compare the halves"},
        {"h2exp", "paired-half math functions (h2exp) are not supported in kernels; apply the scalar one to each half"},
        {"h2exp2", "paired-half math functions (h2exp2) are not supported in kernels; apply the scalar one to each half"},
        {"h2log", "paired-half math functions (h2log) are not supported in kernels; apply the scalar one to each half"},
        {"h2log2", "paired-half math functions (h2log2) are not supported in kernels; apply the scalar one to each half"},
        {"h2sqrt", "paired-half math functions (h2sqrt) are not supported in kernels; apply the scalar one to each half"},
        {"h2rsqrt", "paired-half math functions (h2rsqrt) are not supported in kernels; apply the scalar one to each half"},
        {"h2rcp", "paired-half math functions (h2rcp) are not supported in kernels; apply the scalar one to each half"},
        {"h2sin", "paired-half math functions (h2sin) are not supported in kernels; apply the scalar one to each half"},
        {"h2cos", "paired-half math functions (h2cos) are not supported in kernels; apply the scalar one to each half"},
        {"h2floor", "paired-half math functions (h2floor) are not supported in kernels; apply the scalar one to each half"},
        {"h2ceil", "paired-half math functions (h2ceil) are not supported in kernels; apply the scalar one to each half"},
        {"h2trunc", "paired-half math functions (h2trunc) are not supported in kernels; apply the scalar one to each half"},
        {"h2rint", "paired-half math functions (h2rint) are not supported in kernels; apply the scalar one to each half"},
        {"cudaTextureObject_t", "texture objects are not supported in kernels; pass a pointer"},
        {"texture", "texture references are not supported in kernels; pass a pointer"},
        {"cudaSurfaceObject_t", "surface objects are not supported in kernels; pass a pointer"},
        {"surface", "surface references are not supported in kernels; pass a pointer"},
        {"tex1Dfetch", "texture fetches (tex1Dfetch) are not supported in kernels; read through a pointer"},
        {"tex1D", "texture fetches (tex1D) are not supported in kernels; read through a pointer"},
        {"tex2D", "texture fetches (tex2D) are not supported in kernels; read through a pointer"},
        {"tex3D", "texture fetches (tex3D) are not supported in kernels; read through a pointer"},
        {"surf2Dread", "surface reads (surf2Dread) are not supported in kernels"},
        {"surf2Dwrite", "surface writes (surf2Dwrite) are not supported in kernels"},
        {"fragment", "warp matrix functions (nvcuda::wmma) are not supported in kernels"},
        {"load_matrix_sync", "warp matrix functions (nvcuda::wmma) are not supported in kernels"},
        {"mma_sync", "warp matrix functions (nvcuda::wmma) are not supported in kernels"},
        {"store_matrix_sync", "warp matrix functions (nvcuda::wmma) are not supported in kernels"},
        {"fill_fragment", "warp matrix functions (nvcuda::wmma) are not supported in kernels"},
        {"atomic_ref", "cuda::atomic_ref is not supported in kernels; use atomicAdd, atomicCAS and the other "
                       "atomic functions (relaxed, device scope) with __threadfence for ordering"},
        {"clock", "clock() is not supported in kernels (the VM has no cycle counter)"},
        {"clock64", "clock64() is not supported in kernels (the VM has no cycle counter)"},
        {"__prof_trigger", "__prof_trigger is not supported in kernels"},
        {"memcpy_async", "asynchronous copies (memcpy_async, cuda::pipeline) are not supported in kernels"},
        {"__pipeline_memcpy_async", "asynchronous copies (__pipeline_memcpy_async) are not supported in kernels"},
        {"this_multi_grid", "multi-grid groups are not supported in kernels"},
        {"this_cluster", "thread block clusters are not supported in kernels"},
        {"cluster_group", "thread block clusters are not supported in kernels"},
    };
    for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
        if (strlen(tab[i].name) == len && memcmp(tab[i].name, name, len) == 0)
            return tab[i].msg;
    /* conversions to half or bf16 with a rounding mode other than _rn: __int2half_rz,
     * __float2half_ru, __float2bfloat16_rz ... */
    const bool directed = len > 4 && name[0] == '_' && name[1] == '_' && name[len - 3] == '_' &&
                          name[len - 2] == 'r' && (name[len - 1] == 'z' || name[len - 1] == 'u' || name[len - 1] == 'd');
    if (directed && len >= 9 && memcmp(name + len - 8, "2half_r", 7) == 0)
        return "conversions to half with a rounding mode other than _rn are not supported in kernels";
    if (directed && len >= 13 && memcmp(name + len - 12, "2bfloat16_r", 11) == 0)
        return "conversions to bf16 with a rounding mode other than _rn are not supported in kernels";
    /* directed-rounding intrinsics: __fadd_rz, __fmul_ru, __dsqrt_rd, __float2int_ru ... are not */
    if (directed && (memcmp(name, "__f", 3) == 0 || memcmp(name, "__d", 3) == 0) && !memchr(name, '2', len))
        return "rounding-mode intrinsics other than _rn (round to nearest) are not supported in kernels";
    return NULL;
}

fe_kind fe_literal_kind(const fe_node *e)
{
    const uint64_t v = e->ival;
    if (e->ty)
        return e->ty->kind;
    if (e->is_unsigned)
        return (e->is_long || v > 0xffffffffull) ? TY_U64 : TY_U32;
    if (e->is_long)
        return v > 0x7fffffffffffffffull ? TY_U64 : TY_I64;
    if (v <= 0x7fffffff)
        return TY_I32;
    if (e->is_float32 && v <= 0xffffffffull) /* hex/octal */
        return TY_U32;
    return v <= 0x7fffffffffffffffull ? TY_I64 : TY_U64;
}

/* The built-in typedefs of scalar types (and dim3's names). */
static const struct { const char *name; fe_kind k; } builtin_typedefs[] = {
    {"size_t", TY_U64}, {"ptrdiff_t", TY_I64}, {"int8_t", TY_I8}, {"int16_t", TY_I16},
    {"int32_t", TY_I32}, {"int64_t", TY_I64}, {"uint8_t", TY_U8}, {"uint16_t", TY_U16},
    {"uint32_t", TY_U32}, {"uint64_t", TY_U64}, {"half", TY_F16}, {"__half", TY_F16},
    {"__nv_bfloat16", TY_BF16}, {"nv_bfloat16", TY_BF16}, {"uint", TY_U32},
    {"intptr_t", TY_I64}, {"uintptr_t", TY_U64}, {"dim3", TY_DIM3}, {"uint3", TY_DIM3},
};

bool fe_scalar_type_name(const char *s, size_t len, fe_kind *out)
{
    for (size_t i = 0; i < sizeof builtin_typedefs / sizeof builtin_typedefs[0]; i++)
        if (strlen(builtin_typedefs[i].name) == len && !memcmp(builtin_typedefs[i].name, s, len) &&
            builtin_typedefs[i].k != TY_DIM3) {
            *out = builtin_typedefs[i].k;
            return true;
        }
    /* C's words in any order: float, double, bool alone; char, short, int, long (twice) with
     * signed or unsigned */
    static const char *const words[] = {"signed", "unsigned", "char", "short", "int", "long", "float",
                                        "double", "bool"};
    unsigned n[9] = {0}, total = 0;
    for (size_t i = 0; i < len;) {
        if (s[i] == ' ') {
            i++;
            continue;
        }
        size_t j = i;
        while (j < len && s[j] != ' ')
            j++;
        size_t w = 0;
        while (w < 9 && (strlen(words[w]) != j - i || memcmp(words[w], s + i, j - i) != 0))
            w++;
        if (w == 9)
            return false;
        n[w]++;
        total++;
        i = j;
    }
    const unsigned sign = n[0] + n[1], floats = n[6] + n[7] + n[8];
    if (!total || sign > 1 || n[2] > 1 || n[3] > 1 || n[4] > 1 || n[5] > 2 || n[6] > 1 || n[7] > 1 || n[8] > 1)
        return false;
    if (floats)
        return total == 1 && (*out = n[6] ? TY_F32 : n[7] ? TY_F64 : TY_BOOL, true);
    if (n[2] + !!n[3] + !!n[5] > 1 || (n[2] && n[4])) /* char with short, long or int; short with long */
        return false;
    const bool u = n[1] > 0;
    *out = n[2] ? (u ? TY_U8 : TY_I8) : n[3] ? (u ? TY_U16 : TY_I16) : n[5] ? (u ? TY_U64 : TY_I64)
                                                                               : (u ? TY_U32 : TY_I32);
    return true;
}

/* The type names every source starts with: the <stdint.h> and CUDA scalar
 * names, the cooperative-groups types and families, the vector types
 * (float2 ... ulonglong4; the three-element ones structs, as CUDA's
 * vector_types.h has them) and the paired half types. */
void fe_builtin_types(fe_ctx *c)
{
    for (size_t i = 0; i < sizeof builtin_typedefs / sizeof builtin_typedefs[0]; i++)
        fe_p_push_tname(c, builtin_typedefs[i].name, fe_ty(builtin_typedefs[i].k), false, 0);
    /* cooperative groups: group types, and names that are types only before '<' */
    fe_p_push_tname(c, "thread_block", fe_cg_type(c, CG_BLOCK, 0, NULL), false, 0);
    fe_p_push_tname(c, "grid_group", fe_cg_type(c, CG_GRID, 0, NULL), false, 0);
    fe_p_push_tname(c, "thread_group", fe_cg_type(c, CG_GROUP, 0, NULL), false, 0);
    fe_p_push_tname(c, "coalesced_group", fe_cg_type(c, CG_COALESCED, 0, NULL), false, 0);
    static const char *const family[] = {"thread_block_tile", "plus", "less", "greater",
                                         "bit_and", "bit_or", "bit_xor"};
    for (size_t i = 0; i < sizeof family / sizeof family[0]; i++)
        fe_p_push_tname(c, family[i], fe_cg_type(c, CG_FAMILY, (uint32_t)i, NULL), false, 0);
    static const struct { const char *name; fe_kind k; } vbase[] = {
        {"float", TY_F32}, {"int", TY_I32}, {"uint", TY_U32}, {"double", TY_F64},
        {"char", TY_I8}, {"uchar", TY_U8}, {"short", TY_I16}, {"ushort", TY_U16},
        {"long", TY_I64}, {"ulong", TY_U64}, {"longlong", TY_I64}, {"ulonglong", TY_U64},
    };
    for (size_t i = 0; i < sizeof vbase / sizeof vbase[0]; i++) {
        for (uint32_t n = 2; n <= 4; n++) {
            char *name = fe_fmt(c, "%s%u", vbase[i].name, n);
            fe_type *t;
            if (n == 3) { /* no line of 3: a struct of three members, 4-byte aligned */
                t = fe_alloc(c, sizeof *t);
                if (!t)
                    return;
                t->kind = TY_STRUCT;
                t->name = name;
                fe_member **link = &t->members;
                for (int m = 0; m < 3; m++) {
                    fe_member *mm = fe_alloc(c, sizeof *mm);
                    if (!mm)
                        return;
                    mm->name = m == 0 ? "x" : m == 1 ? "y" : "z";
                    mm->ty = fe_ty(vbase[i].k);
                    *link = mm;
                    link = &mm->next;
                }
                fe_struct_layout(t);
            } else {
                t = fe_vec_of(c, fe_ty(vbase[i].k), n, name);
            }
            fe_p_push_tname(c, name, t, false, 0);
        }
    }
    /* the paired half types: lines of two (half2.c) */
    fe_type *h2 = fe_vec_of(c, fe_ty(TY_F16), 2, "__half2"), *b2 = fe_vec_of(c, fe_ty(TY_BF16), 2, "__nv_bfloat162");
    fe_p_push_tname(c, "__half2", h2, false, 0);
    fe_p_push_tname(c, "half2", h2, false, 0);
    fe_p_push_tname(c, "__nv_bfloat162", b2, false, 0);
    fe_p_push_tname(c, "nv_bfloat162", b2, false, 0);
}
