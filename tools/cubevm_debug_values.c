/*
 * cubevm_debug_values.c - the values of `cubevm debug`: what a name in a
 * command reads (a variable of the selected frame, a register %rN, a
 * threadIdx-style name, an element [(TYPE)]NAME[INDEX] of a pointer) in
 * each lane of a plane, as numbers for conditions and as text for print,
 * display and x. The session (cubevm_debug.c) calls in here at a stop.
 */
#include "cubevm_debug.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>


void dbg_print_bits(FILE *f, const dbg *g, cvm_elem e, cvm_debug_space space, uint64_t bits,
                    bool hex)
{
    if (!e) {
        char buf[200];
        cvm_debug_ptr_text(g->at, space, bits, buf, sizeof buf);
        fprintf(f, "(%s)", buf);
    } else if (hex) {
        fprintf(f, "0x%llx", (unsigned long long)bits);
    } else {
        cli_print_elem(f, e, &bits, 0);
    }
}

/* NAME[INDEX] in lane l of plane `plane`: the element of type `pointee` at
 * pointer p (its bits) + i elements. */
static void element_text(const dbg *g, FILE *f, const value *v, cvm_elem pointee, uint64_t p,
                         int64_t i, uint32_t plane, uint32_t l, bool hex)
{
    uint64_t elem = 0;
    size_t esz = cli_elem_size(pointee);
    int64_t off;
    if (__builtin_mul_overflow(i, (int64_t)esz, &off) || off > (INT64_C(1) << 40) ||
        off < -(INT64_C(1) << 40)) {
        fputs("<out of bounds: index too large>", f); /* past any memory: no wrapping around */
        return;
    }
    uint64_t at = p + (uint64_t)off;
    if (v->space != CVM_DEBUG_GLOBAL && at > UINT32_MAX) { /* 32-bit offsets: no wrapping */
        fputs("<out of bounds: past the 32-bit offsets of its memory>", f);
        return;
    }
    if (cvm_debug_read_mem(g->at, plane, l, v->space, at, &elem, esz) != CVM_OK) {
        char buf[200];
        cvm_debug_ptr_text(g->at, v->space, at, buf, sizeof buf);
        fprintf(f, "<out of bounds: %s>", buf);
    } else {
        dbg_print_bits(f, g, pointee, 0, elem, hex);
    }
}

/* The plane `print` reads, and its pc. */
uint32_t dbg_view_pc(const dbg *g, uint32_t *out_plane, cvm_debug_plane_info *info)
{
    uint32_t plane = g->view_plane == UINT32_MAX ? g->w->plane : g->view_plane;
    cvm_debug_plane(g->at, plane, info);
    *out_plane = plane;
    return info->pc;
}

/* The frame print and info look at: the innermost call around pc, or the
 * one up/down/frame selected. */
uint32_t dbg_view_frame(const dbg *g, uint32_t pc)
{
    uint32_t depth = dbg_frame_depth(g, pc);
    return g->frame_sel < depth ? depth - g->frame_sel : 0;
}

/* Variable `name` of the frame at pc (an inlined call does not see its caller's). */
static bool find_var(const dbg *g, uint32_t pc, const char *name, value *out)
{
    cvm_debug_var v;
    const uint32_t frame = dbg_view_frame(g, pc);
    for (uint32_t i = 0; cvm_debug_var_at(g->k, pc, i, &v) == CVM_OK; i++) {
        if (strcmp(v.name, name) != 0 || v.frame != frame)
            continue;
        cvm_debug_type t;
        if (cvm_debug_reg_type(g->k, v.reg, &t) != CVM_OK)
            return false;
        *out = (value){!t.elem, t.elem, t.space, v.reg, t.line, v.name};
        return true;
    }
    return false;
}

/* The element type of buffer parameter `name` (what its pointer variables point at). */
static cvm_elem param_elem(const dbg *g, const char *name)
{
    cvm_kernel_info ki;
    cvm_kernel_info_get(g->k, &ki);
    for (uint32_t i = 0; i < ki.param_count; i++) {
        cvm_param_info p;
        if (cvm_kernel_param(g->k, i, &p) == CVM_OK && p.kind == CVM_PARAM_BUFFER && p.line == 1 &&
            !strcmp(p.name, name))
            return p.elem;
    }
    return (cvm_elem)0;
}

/* threadIdx.x and friends, per lane of plane `plane`: 1 when `name` is one
 * (before the launch, with *out 0). */
static int builtin_value(const dbg *g, const char *name, uint32_t plane, uint32_t lane, uint64_t *out)
{
    static const char *const bases[] = {"threadIdx", "blockIdx", "blockDim", "gridDim"};
    for (unsigned b = 0; b < 4; b++) {
        size_t n = strlen(bases[b]);
        if (strncmp(name, bases[b], n) != 0 || name[n] != '.' || !strchr("xyz", name[n + 1]) ||
            !name[n + 1] || name[n + 2])
            continue;
        unsigned c = (unsigned)(name[n + 1] - 'x');
        *out = 0;
        if (!g->w) /* only the name is asked about (a breakpoint's condition) */
            return 1;
        uint32_t block[3], grid[3];
        for (int i = 0; i < 3; i++) {
            block[i] = g->cfg->block[i] ? g->cfg->block[i] : 1;
            grid[i] = g->cfg->grid[i] ? g->cfg->grid[i] : 1;
        }
        uint32_t unit = plane * g->w->plane_width + lane;
        uint32_t pos[3] = {unit % block[0], unit / block[0] % block[1], unit / (block[0] * block[1])};
        *out = b == 0 ? pos[c] : b == 1 ? g->w->cube[c] : b == 2 ? block[c] : grid[c];
        return 1;
    }
    return 0;
}

number dbg_int_number(bool neg, uint64_t mag)
{
    number n = {true, neg && mag, mag, neg ? -(double)mag : (double)mag};
    return n;
}

/* Register %rN as a value; false when name is no register of the kernel. */
static bool reg_value(const dbg *g, const char *name, value *out)
{
    uint64_t r;
    cvm_debug_type t;
    if (name[0] != '%' || name[1] != 'r' || !cli_parse_u64(name + 2, &r) || r > UINT32_MAX ||
        cvm_debug_reg_type(g->k, (uint32_t)r, &t) != CVM_OK)
        return false;
    *out = (value){!t.elem, t.elem, t.space, (uint32_t)r, t.line, name};
    return true;
}

/* What a name used as a number is: a threadIdx-style name (*builtin), or a
 * scalar variable or register that is no pointer. Looked up once; then
 * read per lane (number_at). */
bool dbg_resolve_number(const dbg *g, const char *name, uint32_t pc, value *v, bool *builtin)
{
    uint64_t bits;
    *builtin = builtin_value(g, name, 0, 0, &bits);
    if (*builtin)
        return true;
    if (!reg_value(g, name, v) && !find_var(g, pc, name, v))
        return false;
    return !v->ptr && v->line == 1;
}

bool dbg_number_at(const dbg *g, const char *name, const value *v, bool builtin, uint32_t plane,
                   uint32_t lane, number *out)
{
    uint64_t bits;
    if (builtin) {
        builtin_value(g, name, plane, lane, &bits);
        *out = dbg_int_number(false, bits);
        return true;
    }
    if (cvm_debug_read_reg(g->at, plane, v->reg, 0, lane, &bits) != CVM_OK)
        return false;
    unsigned sz = cli_elem_size(v->elem);
    *out = (number){0};
    switch (v->elem) {
    case CVM_F32: {
        float f;
        uint32_t b = (uint32_t)bits;
        memcpy(&f, &b, 4);
        out->d = f;
        return true;
    }
    case CVM_F64: memcpy(&out->d, &bits, 8); return true;
    case CVM_F16: out->d = cli_f16_to_f32((uint16_t)bits); return true;
    case CVM_BF16: out->d = cli_bf16_to_f32((uint16_t)bits); return true;
    case CVM_I8: case CVM_I16: case CVM_I32: case CVM_I64:
        if (sz < 8 && (bits >> (8 * sz - 1) & 1))
            bits |= ~UINT64_C(0) << (8 * sz);
        *out = (int64_t)bits < 0 ? dbg_int_number(true, 0 - bits) : dbg_int_number(false, bits);
        return true;
    default: *out = dbg_int_number(false, bits); return true;
    }
}

/* A name as a number in one lane of plane `plane` (at pc). */
static bool lane_value(const dbg *g, const char *name, uint32_t plane, uint32_t pc, uint32_t lane,
                       number *out)
{
    value v;
    bool builtin;
    return dbg_resolve_number(g, name, pc, &v, &builtin) && dbg_number_at(g, name, &v, builtin, plane, lane, out);
}

/* An integer-valued name (an index term) in one lane. */
static bool lane_integer(const dbg *g, const char *name, uint32_t plane, uint32_t pc, uint32_t lane,
                         int64_t *out)
{
    number n;
    if (!lane_value(g, name, plane, pc, lane, &n) || !n.integer || n.mag > (uint64_t)INT64_MAX)
        return false;
    *out = n.neg ? -(int64_t)n.mag : (int64_t)n.mag;
    return true;
}

/* a <op> b; integers exactly (u64 max against -1 too), else as doubles */
bool dbg_compare(cmp_op op, number a, number b)
{
    int c;
    if (a.integer && b.integer)
        c = a.neg != b.neg ? (a.neg ? -1 : 1)
          : a.mag == b.mag ? 0 : (a.mag < b.mag) != a.neg ? -1 : 1;
    else if (a.d != a.d || b.d != b.d) /* NaN: only != holds */
        return op == OP_NE;
    else
        c = a.d < b.d ? -1 : a.d > b.d;
    switch (op) {
    case OP_EQ: return c == 0;
    case OP_NE: return c != 0;
    case OP_LT: return c < 0;
    case OP_LE: return c <= 0;
    case OP_GT: return c > 0;
    case OP_GE: return c >= 0;
    default: return true;
    }
}

/* INDEX of NAME[INDEX] in one lane: terms (numbers, integer variables,
 * %rN, threadIdx.x ...) joined by + and -; false when a term is none. */
static bool index_value(const dbg *g, const char *index, uint32_t plane, uint32_t pc, uint32_t lane,
                        int64_t *out)
{
    int64_t sum = 0;
    const char *s = index;
    int sign = 1;
    if (*s == '-') {
        sign = -1;
        s++;
    }
    for (;;) {
        char term[128];
        size_t n = strcspn(s, "+-");
        if (!n || n >= sizeof term)
            return false;
        memcpy(term, s, n);
        term[n] = 0;
        uint64_t u;
        int64_t x;
        if (cli_parse_u64(term, &u) && u <= INT64_MAX)
            x = (int64_t)u;
        else if (!lane_integer(g, term, plane, pc, lane, &x))
            return false;
        if (__builtin_add_overflow(sum, sign < 0 ? -x : x, &sum) || x == INT64_MIN)
            return false; /* no wrapping around to another element */
        s += n;
        if (!*s)
            break;
        sign = *s == '-' ? -1 : 1;
        s++;
    }
    *out = sum;
    return true;
}

/* A cubevm element type by its name (f32, u8, ...). */
static bool elem_by_name(const char *s, cvm_elem *out)
{
    for (int e = CVM_BOOL; e <= CVM_F64; e++)
        if (!strcmp(s, cli_elem_name((cvm_elem)e))) {
            *out = (cvm_elem)e;
            return true;
        }
    return false;
}

/* "(float)", "(f32)": the element type of a cast, or 0. */
static cvm_elem cast_elem(const char *t)
{
    static const struct {
        const char *c;
        cvm_elem e;
    } names[] = {{"float", CVM_F32}, {"double", CVM_F64}, {"int", CVM_I32}, {"unsigned", CVM_U32},
                 {"uint", CVM_U32}, {"char", CVM_I8}, {"short", CVM_I16}, {"long", CVM_I64},
                 {"half", CVM_F16}, {"bool", CVM_BOOL}, {"int32_t", CVM_I32}, {"uint32_t", CVM_U32},
                 {"int64_t", CVM_I64}, {"uint64_t", CVM_U64}, {"uint8_t", CVM_U8}, {"int8_t", CVM_I8}};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(t, names[i].c))
            return names[i].e;
    cvm_elem e;
    return elem_by_name(t, &e) ? e : (cvm_elem)0;
}

/* print [/x] NAME | [(TYPE)]NAME[INDEX] | %rN | threadIdx.x ...: the value in every lane of the plane. */
void dbg_print(dbg *g, const char *fmt, const char *expr, const char *label)
{
    bool hex = fmt && !strcmp(fmt, "x");
    if (fmt && !hex) {
        printf("print/%s: only /x (hexadecimal) is a print format; 'x' reads memory\n", fmt);
        return;
    }
    cvm_debug_plane_info info;
    uint32_t plane, pc = dbg_view_pc(g, &plane, &info);
    char name[128], index[128] = "";
    cvm_elem cast = (cvm_elem)0;
    if (expr[0] == '(') { /* (float)s[t]: the element type of a pointer without one */
        const char *close = strchr(expr, ')');
        char t[32];
        size_t tl = close ? (size_t)(close - expr - 1) : 0;
        if (tl && tl < sizeof t) {
            memcpy(t, expr + 1, tl);
            t[tl] = 0;
            cast = cast_elem(t);
        }
        if (!cast || !strchr(close, '[')) {
            printf("print: '%s': a cast is (TYPE)NAME[INDEX], TYPE float, int, unsigned, f32, u8, ...\n",
                   expr);
            return;
        }
        expr = close + 1;
    }
    const char *br = strchr(expr, '[');
    size_t nl = br ? (size_t)(br - expr) : strlen(expr);
    if (!nl || nl >= sizeof name) {
        printf("print: expected a variable, a register %%rN or threadIdx.x; see 'help print'\n");
        return;
    }
    memcpy(name, expr, nl);
    name[nl] = 0;
    if (br) {
        const char *end = strchr(br, ']');
        size_t il = end ? (size_t)(end - br - 1) : 0;
        if (!end || end[1] || !il || il >= sizeof index) {
            printf("print: '%s': expected NAME[INDEX]\n", expr);
            return;
        }
        memcpy(index, br + 1, il);
        index[il] = 0;
    }
    value v;
    uint64_t dummy;
    bool builtin = builtin_value(g, name, plane, 0, &dummy);
    if (!builtin) {
        if (name[0] == '%' && name[1] == 'r') {
            if (!reg_value(g, name, &v)) {
                printf("print: the kernel has no register %s (%%r0 to %%r%u)\n", name,
                       cvm_debug_reg_count(g->k) - 1);
                return;
            }
        } else if (!find_var(g, pc, name, &v)) {
            printf("print: no variable '%s' here ('info locals' lists them)\n", name);
            return;
        }
    }
    cvm_elem pointee = cast;
    if (index[0]) {
        if (builtin || !v.ptr) {
            printf("print: '%s' is not a pointer\n", name);
            return;
        }
        if (!pointee && !(pointee = param_elem(g, v.name))) {
            printf("print: '%s' is no buffer parameter, so its element type is unknown: give it, "
                   "as in print (float)%s[%s]\n", name, name, index);
            return;
        }
        int64_t probe;
        uint32_t l0 = info.active ? (uint32_t)__builtin_ctzll(info.active) : 0;
        if (!index_value(g, index, plane, pc, l0, &probe)) {
            printf("print: index '%s': expected numbers, integer variables in scope, %%rN or "
                   "threadIdx.x ..., joined by + and -\n", index);
            return;
        }
    }
    if (!label)
        g->values++;
    char lanes[200];
    dbg_mask_text(info.active, info.lanes, lanes, sizeof lanes);
    /* each lane's value as text, then rows of 8 lanes (one line when the active lanes agree) */
    char (*text)[1024] = calloc(info.lanes ? info.lanes : 1, sizeof *text); /* 16 x 60 characters */
    if (!text) {
        printf("print: out of memory\n");
        return;
    }
    for (uint32_t l = 0; l < info.lanes; l++) {
        FILE *f = fmemopen(text[l], sizeof text[l] - 1, "w");
        if (!f)
            continue;
        if (builtin) {
            uint64_t b;
            builtin_value(g, name, plane, l, &b);
            fprintf(f, hex ? "0x%llx" : "%llu", (unsigned long long)b);
        }
        for (uint32_t e = 0; !builtin && e < v.line; e++) {
            uint64_t bits = 0;
            cvm_debug_read_reg(g->at, plane, v.reg, e, l, &bits);
            if (index[0]) {
                int64_t i = 0;
                if (index_value(g, index, plane, pc, l, &i))
                    element_text(g, f, &v, pointee, bits, i, plane, l, hex);
                continue;
            }
            fputs(e ? ", " : v.line > 1 ? "(" : "", f);
            dbg_print_bits(f, g, v.elem, v.space, bits, hex);
        }
        if (!builtin && !index[0] && v.line > 1)
            fputs(")", f);
        fclose(f);
    }
    uint32_t first = info.active ? (uint32_t)__builtin_ctzll(info.active) : 0;
    bool same = info.active != 0;
    for (uint32_t l = 0; l < info.lanes; l++)
        same &= !(info.active >> l & 1) || !strcmp(text[l], text[first]);
    if (label)
        printf("%s = ", label);
    else
        printf("$%u = ", g->values);
    if (same) {
        printf("%s  (plane %u, all active lanes: %s)\n", text[first], plane, lanes);
    } else {
        printf("plane %u, lanes %s active%s:\n", plane, lanes,
               info.active == dbg_live_mask(info.lanes) ? "" : " (* inactive)");
        for (uint32_t l = 0; l < info.lanes; l += 8) {
            printf("  [%2u]", l);
            for (uint32_t j = l; j < l + 8 && j < info.lanes; j++)
                printf(" %s%s", text[j], info.active >> j & 1 ? "" : "*");
            printf("\n");
        }
    }
    free(text);
}

/* x/N<type> EXPR: N elements at the pointer in the current lane. */
void dbg_examine(dbg *g, const char *fmt, const char *expr)
{
    uint64_t count = 1;
    cvm_elem e = (cvm_elem)0;
    char num[24] = "";
    size_t nd = 0;
    while (fmt && isdigit((unsigned char)fmt[nd]) && nd < sizeof num - 1)
        nd++;
    if (fmt)
        memcpy(num, fmt, nd);
    num[nd] = 0;
    if (!fmt || (nd && (!cli_parse_u64(num, &count) || !count || count > 4096)) ||
        !elem_by_name(fmt + nd, &e)) {
        printf("x: expected x/N<type> POINTER, N from 1 to 4096, e.g. x/4f32 in (types: i8 .. u64, "
               "f16, bf16, f32, f64)\n");
        return;
    }
    cvm_debug_plane_info info;
    uint32_t plane, pc = dbg_view_pc(g, &plane, &info);
    value v;
    if (!expr || !find_var(g, pc, expr, &v) || !v.ptr) {
        printf("x: '%s' is no pointer variable here\n", expr ? expr : "");
        return;
    }
    uint32_t lane = g->lane < info.lanes ? g->lane : 0;
    uint64_t p;
    cvm_debug_read_reg(g->at, plane, v.reg, 0, lane, &p);
    char buf[200];
    cvm_debug_ptr_text(g->at, v.space, p, buf, sizeof buf);
    printf("lane %u: %s = (%s):", lane, expr, buf);
    unsigned esz = cli_elem_size(e);
    for (uint64_t i = 0; i < count; i++) {
        uint64_t bits = 0;
        uint64_t a = p + i * esz;
        if ((v.space != CVM_DEBUG_GLOBAL && a > UINT32_MAX) || /* 32-bit offsets: no wrapping */
            cvm_debug_read_mem(g->at, plane, lane, v.space, a, &bits, esz) != CVM_OK) {
            printf(" <end of the memory it points into>");
            break;
        }
        printf(" ");
        cli_print_elem(stdout, e, &bits, 0);
    }
    printf("\n");
}

