/*
 * test_verify.c - the verifier and the divergence analysis.
 *
 * - Every valid .cbs under docs/examples/ and tests/ (not err_*) verifies.
 * - tests/verify/err_*.cbs: the first line is `; expect error: TEXT`; the
 *   file assembles and cvm_bc_verify fails with CVM_VERIFY and TEXT in the
 *   message.
 * - tests/verify/uni_*.cbs: lines `; expect uni KERNEL %rN CLASS` are
 *   checked against reg_uni (registers written %rN in declaration order).
 * - Malformations the assembler refuses to write are built in C.
 * - Corruption: every valid module is truncated and byte-flipped through
 *   cvm_bc_module_read + cvm_bc_verify, and its decoded form is mutated
 *   field by field and verified directly (the hash would stop most byte
 *   flips in the reader); nothing may crash, and whatever verifies must
 *   have sane control facts.
 *
 * Run from the repository root.
 */
#include "../bytecode/bc.h"
#include "slurp.h"
#include "tap.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- files ---- */

typedef struct pathlist {
    char **p;
    size_t n, cap;
} pathlist;

static void add_path(pathlist *l, const char *path)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? l->cap * 2 : 64;
        l->p = realloc(l->p, l->cap * sizeof *l->p);
    }
    l->p[l->n++] = strdup(path);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every .cbs below dir (recursively). */
static void walk(pathlist *l, const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".cbs") == 0)
            add_path(l, path);
        else if (!strchr(e->d_name, '.'))
            walk(l, path); /* directories have no dot in this tree */
    }
    closedir(d);
}

static const char *base(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

static cvm_bc_module *assemble(const char *path, cvm_diag *diag)
{
    size_t n;
    char *text = test_slurp(path, &n);
    if (!text)
        return NULL;
    cvm_bc_module *m = NULL;
    if (cvm_bc_assemble(text, n, path, NULL, NULL, &m, diag) != CVM_OK)
        m = NULL;
    free(text);
    return m;
}

/* ---- golden error files ---- */

static void test_err_file(const char *path)
{
    size_t n;
    char *text = test_slurp(path, &n);
    const char *tag = "; expect error: ";
    if (!text || strncmp(text, tag, strlen(tag)) != 0) {
        ok(0, "%s: first line is '%s...'", path, tag);
        free(text);
        return;
    }
    char want[256];
    size_t wl = strcspn(text + strlen(tag), "\r\n");
    snprintf(want, sizeof want, "%.*s", (int)wl, text + strlen(tag));
    cvm_diag dg;
    cvm_bc_module *m = NULL;
    if (cvm_bc_assemble(text, n, path, NULL, NULL, &m, &dg) != CVM_OK) {
        ok(0, "%s assembles", path);
        diag("  %s", dg.message);
        free(text);
        return;
    }
    cvm_bc_verified *v = NULL;
    cvm_status st = cvm_bc_verify(m, &v, &dg);
    int good = st == CVM_VERIFY && strstr(dg.message, want) != NULL;
    ok(good, "%s: rejected with '%s'", base(path), want);
    if (!good)
        diag("  status %d, message: %s", (int)st, st ? dg.message : "(verified)");
    cvm_bc_verified_free(m, v);
    cvm_bc_module_free(m);
    free(text);
}

/* ---- divergence expectations ---- */

static int kernel_index(const cvm_bc_module *m, const char *name, size_t len)
{
    for (uint32_t i = 0; i < m->nkernels; i++) {
        const cvm_bc_string *s = &m->strings[m->kernels[i].name];
        if (s->len == len && memcmp(s->data, name, len) == 0)
            return (int)i;
    }
    return -1;
}

static int parse_class(const char *s)
{
    static const char *const names[] = {"grid", "cube", "plane", "varying"};
    for (int i = 0; i < 4; i++)
        if (strncmp(s, names[i], strlen(names[i])) == 0)
            return i;
    return -1;
}

static void test_uni_file(const char *path)
{
    size_t n;
    char *text = test_slurp(path, &n);
    cvm_diag dg;
    cvm_bc_module *m = NULL;
    cvm_bc_verified *v = NULL;
    if (!text || cvm_bc_assemble(text, n, path, NULL, NULL, &m, &dg) != CVM_OK ||
        cvm_bc_verify(m, &v, &dg) != CVM_OK) {
        ok(0, "%s assembles and verifies", path);
        diag("  %s", text ? dg.message : "cannot read");
        goto done;
    }
    const char *tag = "; expect uni ";
    int checks = 0;
    for (const char *p = strstr(text, tag); p; p = strstr(p + 1, tag)) {
        char kname[64], reg[16], cls[16];
        if (sscanf(p + strlen(tag), "%63s %15s %15s", kname, reg, cls) != 3) {
            ok(0, "%s: malformed expectation", path);
            continue;
        }
        int k = kernel_index(m, kname, strlen(kname));
        unsigned r = (unsigned)atoi(reg + 2);
        int want = parse_class(cls);
        if (k < 0 || reg[0] != '%' || reg[1] != 'r' || r >= m->kernels[k].nregs || want < 0) {
            ok(0, "%s: bad expectation %s %s %s", path, kname, reg, cls);
            continue;
        }
        is_int(v->kernels[k].reg_uni[r], want, "%s: %s %s is %s", base(path), kname, reg, cls);
        checks++;
    }
    ok(checks > 0, "%s has expectations", base(path));
done:
    cvm_bc_verified_free(m, v);
    cvm_bc_module_free(m);
    free(text);
}

/* ---- facts of a verified module stay in range (also for mutated input) ---- */

static int sane(const cvm_bc_module *m, const cvm_bc_verified *v)
{
    for (uint32_t k = 0; k < m->nkernels; k++) {
        const cvm_bc_vkernel *vk = &v->kernels[k];
        if (vk->max_depth > CVM_BC_MAX_DEPTH || vk->reg_bytes > CVM_BC_MAX_REG_BYTES)
            return 0;
        for (uint32_t r = 0; r < m->kernels[k].nregs; r++)
            if (vk->reg_uni[r] > CVM_UNI_VARYING)
                return 0;
        for (uint32_t pc = 0; pc < vk->ninsns; pc++) {
            const cvm_bc_vinsn *vi = &vk->insns[pc];
            unsigned op = m->kernels[k].code[vi->word] & 0xffff;
            if (vi->target >= vk->ninsns && vi->target != 0)
                return 0;
            if (vi->end > vk->ninsns || vi->next > vk->ninsns || vi->depth > CVM_BC_MAX_DEPTH ||
                vi->uni > CVM_UNI_VARYING || vi->dst_uni > CVM_UNI_VARYING ||
                vi->live_uni > vi->uni)
                return 0;
            if (op == CVM_OP_END) {
                const cvm_bc_vinsn *o = &vk->insns[vi->target];
                unsigned oop = m->kernels[k].code[o->word] & 0xffff;
                if (o->end != pc || vi->target >= pc ||
                    (oop != CVM_OP_IF && oop != CVM_OP_LOOP && oop != CVM_OP_SWITCH &&
                     oop != CVM_OP_BLOCK))
                    return 0;
            }
        }
    }
    return 1;
}

/* Verifies; on success checks the facts and frees. Returns the status. */
static cvm_status verify_once(const cvm_bc_module *m, cvm_diag *diag, int *insane)
{
    cvm_bc_verified *v = NULL;
    cvm_status st = cvm_bc_verify(m, &v, diag);
    if (st == CVM_OK) {
        if (!sane(m, v))
            (*insane)++;
        cvm_bc_verified_free(m, v);
    }
    return st;
}

/* ---- corruption ---- */

/* Truncation at every length and byte flips through the reader. */
static void corrupt_bytes(const char *path, const uint8_t *bytes, size_t size)
{
    int insane = 0, crashed_never = 1;
    size_t stride = size <= 4096 ? 1 : size / 2048;
    uint8_t *copy = malloc(size);
    cvm_diag dg;
    for (size_t len = 0; len < size; len += stride) {
        cvm_bc_module *m = NULL;
        if (cvm_bc_module_read(bytes, len, NULL, NULL, &m, &dg) == CVM_OK) {
            verify_once(m, &dg, &insane);
            cvm_bc_module_free(m);
        }
    }
    for (size_t i = 0; i < size; i += stride) {
        static const uint8_t masks[] = {0x01, 0x80, 0xff};
        for (unsigned j = 0; j < sizeof masks; j++) {
            memcpy(copy, bytes, size);
            copy[i] ^= masks[j];
            cvm_bc_module *m = NULL;
            if (cvm_bc_module_read(copy, size, NULL, NULL, &m, &dg) == CVM_OK) {
                verify_once(m, &dg, &insane);
                cvm_bc_module_free(m);
            }
        }
    }
    free(copy);
    ok(crashed_never && insane == 0, "%s: truncations and byte flips (stride %zu)", base(path),
       stride);
}

static void flip32(uint32_t *p, uint32_t mask, const cvm_bc_module *m, int *insane, long *n)
{
    cvm_diag dg;
    *p ^= mask;
    verify_once(m, &dg, insane);
    *p ^= mask;
    (*n)++;
}

/* Field-by-field mutation of the decoded module, verified directly. */
static void corrupt_fields(const char *path, cvm_bc_module *m)
{
    static const uint32_t masks[] = {1, 2, 0x80, 0x100, 0x10000, 0x1000000, 0xffffffffu, 0x7f};
    int insane = 0;
    long n = 0;
    for (uint32_t k = 0; k < m->nkernels; k++) {
        cvm_bc_kernel *kk = &m->kernels[k];
        uint32_t stride = kk->ncode <= 4096 ? 1 : kk->ncode / 2048;
        for (uint32_t w = 0; w < kk->ncode; w += stride)
            for (unsigned j = 0; j < sizeof masks / sizeof *masks; j++)
                flip32(&kk->code[w], masks[j], m, &insane, &n);
        for (uint32_t r = 0; r < kk->nregs && r < 64; r++) {
            for (unsigned j = 1; j < 0x100; j <<= 1) {
                kk->regs[r].elem ^= (uint8_t)j;
                verify_once(m, &(cvm_diag){0}, &insane);
                kk->regs[r].elem ^= (uint8_t)j;
                kk->regs[r].line ^= (uint8_t)j;
                verify_once(m, &(cvm_diag){0}, &insane);
                kk->regs[r].line ^= (uint8_t)j;
                n += 2;
            }
        }
        for (uint32_t p = 0; p < kk->nparams; p++) {
            cvm_bc_param *pp = &kk->params[p];
            for (unsigned j = 0; j < 4; j++) {
                flip32(&pp->size, masks[j], m, &insane, &n);
                flip32(&pp->align, masks[j], m, &insane, &n);
                flip32(&pp->name, masks[j], m, &insane, &n);
            }
            pp->kind ^= 1;
            verify_once(m, &(cvm_diag){0}, &insane);
            pp->kind ^= 1;
        }
        uint32_t *hdr[] = {&kk->name, &kk->flags, &kk->plane_width, &kk->shared_bytes,
                           &kk->local_bytes, &kk->nregs, &kk->nparams, &kk->ncode};
        for (unsigned h = 0; h < sizeof hdr / sizeof *hdr; h++) {
            uint32_t save = *hdr[h];
            /* counts may only shrink: the arrays behind them are that long */
            bool count = hdr[h] == &kk->nregs || hdr[h] == &kk->nparams || hdr[h] == &kk->ncode;
            for (unsigned j = 0; j < sizeof masks / sizeof *masks; j++) {
                *hdr[h] = count ? save & ~masks[j] : save ^ masks[j];
                verify_once(m, &(cvm_diag){0}, &insane);
                n++;
            }
            *hdr[h] = save;
        }
    }
    for (uint32_t s = 0; s < m->nsymbols; s++) {
        cvm_bc_symbol *sy = &m->symbols[s];
        uint32_t *f[] = {&sy->size, &sy->align, &sy->init_off, &sy->init_size, &sy->name};
        for (unsigned h = 0; h < 5; h++)
            for (unsigned j = 0; j < sizeof masks / sizeof *masks; j++)
                flip32(f[h], masks[j], m, &insane, &n);
    }
    cvm_bc_debug *d = &m->debug;
    for (uint32_t i = 0; i < d->nlines; i++)
        for (unsigned j = 0; j < 4; j++) {
            flip32(&d->lines[i].pc, masks[j], m, &insane, &n);
            flip32(&d->lines[i].file, masks[j], m, &insane, &n);
            flip32(&d->lines[i].kernel, masks[j], m, &insane, &n);
        }
    for (uint32_t i = 0; i < d->nscopes; i++)
        for (unsigned j = 0; j < 4; j++) {
            flip32(&d->scopes[i].parent, masks[j], m, &insane, &n);
            flip32(&d->scopes[i].end_pc, masks[j], m, &insane, &n);
        }
    for (uint32_t i = 0; i < d->nvars; i++)
        for (unsigned j = 0; j < 4; j++) {
            flip32(&d->vars[i].reg, masks[j], m, &insane, &n);
            flip32(&d->vars[i].scope, masks[j], m, &insane, &n);
        }
    flip32(&m->const_size, 0x10, m, &insane, &n);
    ok(insane == 0, "%s: %ld field mutations verified without crash or bad facts", base(path), n);
}

static void test_corruption(const char *path)
{
    cvm_diag dg;
    cvm_bc_module *m = assemble(path, &dg);
    void *bytes = NULL;
    size_t size = 0;
    if (!m || cvm_bc_module_write(m, &bytes, &size, &dg) != CVM_OK) {
        ok(0, "%s: assembles and writes", path);
        cvm_bc_module_free(m);
        return;
    }
    corrupt_bytes(path, bytes, size);
    cvm_bc_free(m->alloc, m->alloc_user, bytes, size);
    corrupt_fields(path, m);
    cvm_bc_module_free(m);
}

/* ---- malformations the assembler cannot write: mutate a valid module ---- */

static const char base_text[] =
    ".file 0 \"a.cu\"\n"
    ".global g u32 4 4\n"
    ".constant c u32 8 4 = 0x0100000002000000\n"
    ".kernel k\n"
    ".param a buffer f32 read\n"
    ".param n scalar u32\n"
    ".reg u32 %r0, %r1\n"
    ".reg f32 %r2\n"
    ".reg bool %r3\n"
    "    .loc 0 3 1\n"
    "    sreg.u32 %r0, unit_pos.x\n"      /* pc 0 */
    "    .scope\n"
    "    .var i %r0\n"
    "    param.u32 %r1, n, 0\n"           /* pc 1 */
    "    add.u32 %r0, %r0, %r1\n"         /* pc 2 */
    "    .endscope\n"
    "    lt.u32 %r3, %r0, %r1\n"          /* pc 3 */
    "    if %r3\n"                        /* pc 4 */
    "        const.f32 %r2, 1.0\n"        /* pc 5 */
    "    end\n"                           /* pc 6 */
    "    return\n"                        /* pc 7 */
    ".end\n"
    ".kernel k2\n"
    ".reg u32 %r0\n"
    "    const.u32 %r0, 1\n"
    ".end\n";

typedef struct mutation {
    const char *name;
    void (*apply)(cvm_bc_module *m);
    const char *expect;
} mutation;

static uint32_t *word(cvm_bc_module *m, uint32_t pc, unsigned w)
{
    cvm_bc_kernel *k = &m->kernels[0];
    uint32_t at = 0;
    for (uint32_t i = 0; i < pc; i++)
        at += 2 + ((k->code[at] >> 16) & 0xff);
    return &k->code[at + w];
}

static void mu_reserved(cvm_bc_module *m) { *word(m, 2, 0) |= 1u << 30; }
static void mu_opcode(cvm_bc_module *m) { *word(m, 2, 0) = (*word(m, 2, 0) & ~0xffffu) | 0x1f; }
static void mu_nops(cvm_bc_module *m) { *word(m, 2, 0) = (*word(m, 2, 0) & ~0xffffu) | CVM_OP_NEG; }
static void mu_reg(cvm_bc_module *m) { *word(m, 2, 3) = 99; }
static void mu_line(cvm_bc_module *m) { *word(m, 2, 1) = CVM_BC_W1(CVM_T_U32, 3, 0, 0, 0); }
static void mu_untyped(cvm_bc_module *m) { *word(m, 4, 1) = CVM_BC_W1(CVM_T_U32, 1, 0, 0, 0); }
static void mu_order(cvm_bc_module *m) { *word(m, 2, 1) |= CVM_BC_W1(0, 0, CVM_ORDER_ACQUIRE, 0, 0); }
static void mu_align(cvm_bc_module *m) { *word(m, 2, 1) |= CVM_BC_W1(0, 0, 0, 0, 2); }
static void mu_sreg(cvm_bc_module *m) { *word(m, 0, 3) = 200; }
static void mu_param_idx(cvm_bc_module *m) { *word(m, 1, 3) = 7; }
static void mu_regtype(cvm_bc_module *m) { m->kernels[0].regs[2] = (cvm_bc_type){CVM_T_PTR_LOCAL, 4}; }
static void mu_regelem(cvm_bc_module *m) { m->kernels[0].regs[2].elem = 77; }
static void mu_nregs(cvm_bc_module *m) { m->kernels[0].nregs = 3; }
static void mu_regbytes(cvm_bc_module *m)
{
    /* Pretend the kernel declares the maximum number of registers: nregs can
     * only shrink in place, so this uses a fresh table. */
    static cvm_bc_type big[CVM_BC_MAX_REGS];
    for (uint32_t i = 0; i < CVM_BC_MAX_REGS; i++)
        big[i] = (cvm_bc_type){CVM_T_F64, 4};
    m->kernels[1].regs = big;
    m->kernels[1].nregs = CVM_BC_MAX_REGS;
}
static void mu_plane(cvm_bc_module *m) { m->kernels[0].plane_width = 48; }
static void mu_fixed(cvm_bc_module *m) { m->kernels[0].flags = CVM_KF_FIXED_WIDTH; }
static void mu_flags(cvm_bc_module *m) { m->kernels[0].flags = 0x80; }
static void mu_local(cvm_bc_module *m) { m->kernels[0].local_bytes = CVM_BC_MAX_LOCAL + 1; }
static void mu_shared(cvm_bc_module *m) { m->kernels[0].shared_bytes = CVM_BC_MAX_SHARED + 1; }
static void mu_dupk(cvm_bc_module *m) { m->kernels[1].name = m->kernels[0].name; }
static void mu_dupparam(cvm_bc_module *m) { m->kernels[0].params[1].name = m->kernels[0].params[0].name; }
static void mu_pkind(cvm_bc_module *m) { m->kernels[0].params[1].kind = 9; }
static void mu_palign(cvm_bc_module *m) { m->kernels[0].params[1].align = 3; }
static void mu_psize(cvm_bc_module *m) { *word(m, 1, 4) = 2; }
static void mu_symconst(cvm_bc_module *m) { m->symbols[1].size = 64; }
static void mu_symalign(cvm_bc_module *m) { m->symbols[0].align = 6; }
static void mu_constsize(cvm_bc_module *m) { m->const_size = m->ndata + 1; }
static void mu_dline(cvm_bc_module *m) { m->debug.lines[0].pc = 100; }
static void mu_dfile(cvm_bc_module *m) { m->debug.lines[0].file = 5; }
static void mu_dscope(cvm_bc_module *m) { m->debug.scopes[0].parent = 0; }
static void mu_dvar(cvm_bc_module *m) { m->debug.vars[0].reg = 50; }
static void mu_dempty(cvm_bc_module *m) { m->debug.scopes[0].end_pc = m->debug.scopes[0].start_pc; }
static void mu_dvarend(cvm_bc_module *m) { m->debug.vars[0].end_pc = 7; }
static void mu_dvarscope(cvm_bc_module *m) { m->debug.vars[0].scope = UINT32_MAX; }
static void mu_string(cvm_bc_module *m) { m->strings[0].len = CVM_BC_MAX_STRING + 1; }
static void mu_ninsns(cvm_bc_module *m) { m->kernels[0].ncode -= 1; }

static const mutation mutations[] = {
    {"reserved bits", mu_reserved, "reserved bits"},
    {"unknown opcode", mu_opcode, "unknown opcode 0x1f"},
    {"operand count", mu_nops, "do not match the format"},
    {"register out of range", mu_reg, "register %r99 out of range"},
    {"bad line", mu_line, "line size 3"},
    {"type on untyped op", mu_untyped, "untyped op"},
    {"order on plain op", mu_order, "memory order/scope"},
    {"align on add", mu_align, "alignment on an op that is not a load or store"},
    {"bad sreg", mu_sreg, "unknown special register 200"},
    {"param index", mu_param_idx, "parameter 7 out of range"},
    {"pointer line register", mu_regtype, "invalid type"},
    {"unknown register elem", mu_regelem, "invalid type"},
    {"fewer registers than used", mu_nregs, "%r3 out of range"},
    {"register bytes", mu_regbytes, "registers take"},
    {"plane width 48", mu_plane, "plane width 48"},
    {"fixed width without width", mu_fixed, "fixed plane width"},
    {"unknown kernel flags", mu_flags, "unknown kernel flags"},
    {"local bytes", mu_local, "local bytes"},
    {"shared bytes", mu_shared, "static shared bytes"},
    {"duplicate kernel", mu_dupk, "repeats the name 'k'"},
    {"duplicate parameter", mu_dupparam, "parameter 1 repeats the name"},
    {"parameter kind", mu_pkind, "unknown kind 9"},
    {"parameter align", mu_palign, "alignment 3"},
    {"param offset beyond size", mu_psize, "reads bytes 2..6 of parameter 1, which has 4 bytes"},
    {"const symbol outside const space", mu_symconst, "outside the 8-byte constant space"},
    {"symbol align", mu_symalign, "alignment 6"},
    {"const space beyond data", mu_constsize, "exceeds the"},
    {"debug line pc", mu_dline, "debug line 0"},
    {"debug line file", mu_dfile, "debug line 0"},
    {"debug scope cycle", mu_dscope, "not nested in the innermost open scope"},
    {"empty debug scope", mu_dempty, "out of range or empty"},
    {"debug var live range", mu_dvarend, "live range 1..7 is not the one"},
    {"debug var outside its scope", mu_dvarscope, "scope -1 or live range"},
    {"debug var register", mu_dvar, "debug variable 0"},
    {"string too long", mu_string, "string 0"},
    {"code not covered", mu_ninsns, "runs past the end of the code"},
};

static void test_mutations(void)
{
    for (size_t i = 0; i < sizeof mutations / sizeof *mutations; i++) {
        cvm_diag dg;
        cvm_bc_module *m = NULL;
        if (cvm_bc_assemble(base_text, sizeof base_text - 1, "base", NULL, NULL, &m, &dg)) {
            ok(0, "base module assembles: %s", dg.message);
            return;
        }
        cvm_bc_kernel saved = m->kernels[1];
        mutations[i].apply(m);
        cvm_bc_verified *v = NULL;
        cvm_status st = cvm_bc_verify(m, &v, &dg);
        int good = st == CVM_VERIFY && strstr(dg.message, mutations[i].expect);
        ok(good, "C-built: %s", mutations[i].name);
        if (!good)
            diag("  status %d: %s", (int)st, st ? dg.message : "(verified)");
        cvm_bc_verified_free(m, v);
        m->kernels[1] = saved;
        cvm_bc_module_free(m);
    }
}

/* The unmutated base module: facts filled as bc.h documents. */
static void test_base_facts(void)
{
    cvm_diag dg;
    cvm_bc_module *m = NULL;
    cvm_bc_verified *v = NULL;
    if (cvm_bc_assemble(base_text, sizeof base_text - 1, "base", NULL, NULL, &m, &dg) ||
        cvm_bc_verify(m, &v, &dg)) {
        ok(0, "base module verifies: %s", dg.message);
        cvm_bc_module_free(m);
        return;
    }
    const cvm_bc_vkernel *vk = &v->kernels[0];
    is_int(vk->ninsns, 8, "base: 8 instructions");
    is_int(vk->insns[4].target, 6, "if.target = its end");
    is_int(vk->insns[4].end, 6, "if.end");
    is_int(vk->insns[6].target, 4, "end.target = its if");
    is_int(vk->insns[5].depth, 1, "depth inside the if");
    is_int(vk->insns[4].depth, 0, "depth of the if itself");
    is_int(vk->insns[5].next, 6, "next marker of the then part");
    is_int(vk->insns[5].end, 6, "end of the enclosing construct");
    is_int(vk->insns[7].end, 8, "return: end = ninsns");
    is_int(vk->max_depth, 1, "max_depth");
    is_int(vk->reg_bytes, 4 + 4 + 4 + 1, "reg_bytes");
    is_int(vk->insns[5].uni, CVM_UNI_VARYING, "mask inside a varying if");
    is_int(vk->insns[3].uni, CVM_UNI_GRID, "mask before the if");
    is_int(vk->insns[1].dst_uni, CVM_UNI_GRID, "param value is grid-uniform");
    const char *file = NULL;
    uint32_t line = 0, col = 0;
    ok(cvm_bc_debug_line(m, 0, 3, &file, &line, &col) && file && strcmp(file, "a.cu") == 0 &&
           line == 3 && col == 1,
       "debug line of pc 3 is a.cu:3:1");
    ok(!cvm_bc_debug_line(m, 1, 0, &file, &line, &col), "no debug line in kernel k2");
    cvm_bc_verified_free(m, v);
    cvm_bc_module_free(m);
}

/* return: later program points carry the exited lanes (uni), not live_uni. */
static void test_return_mask(void)
{
    static const char text[] = ".kernel r\n.reg u32 %r0, %r1\n.reg bool %r2\n"
                               "    sreg.u32 %r0, unit_pos.x\n" /* 0 */
                               "    const.u32 %r1, 3\n"         /* 1 */
                               "    lt.u32 %r2, %r0, %r1\n"     /* 2 */
                               "    loop\n"                     /* 3 */
                               "        const.u32 %r1, 4\n"     /* 4 */
                               "        if %r2\n"               /* 5 */
                               "            return\n"           /* 6 */
                               "        end\n"                  /* 7 */
                               "        break\n"                /* 8 */
                               "    end\n"                      /* 9 */
                               "    const.u32 %r1, 5\n"         /* 10 */
                               ".end\n";
    cvm_diag dg;
    cvm_bc_module *m = NULL;
    cvm_bc_verified *v = NULL;
    if (cvm_bc_assemble(text, sizeof text - 1, "r", NULL, NULL, &m, &dg) ||
        cvm_bc_verify(m, &v, &dg)) {
        ok(0, "return kernel verifies: %s", dg.message);
        cvm_bc_module_free(m);
        return;
    }
    const cvm_bc_vinsn *I = v->kernels[0].insns;
    is_int(I[2].uni, CVM_UNI_GRID, "before the loop: grid mask");
    is_int(I[4].uni, CVM_UNI_VARYING, "in the loop (later iterations lack returned lanes)");
    is_int(I[4].live_uni, CVM_UNI_GRID, "in the loop the live mask is whole");
    is_int(I[10].uni, CVM_UNI_VARYING, "after the loop: varying (exited lanes)");
    is_int(I[10].live_uni, CVM_UNI_GRID, "after the loop: live mask grid");
    is_int(v->kernels[0].reg_uni[1], CVM_UNI_GRID, "registers written after return stay grid");
    is_int(I[6].next, 7, "return.next = the if's end");
    is_int(I[8].end, 9, "break.end = its loop's end");
    cvm_bc_verified_free(m, v);
    cvm_bc_module_free(m);
}

/* A long loop-carried chain defined in reverse order: the worklist must not
 * need one pass per link (it would be quadratic); the harness timeout guards. */
static void test_long_chain(void)
{
    enum { N = 60000 };
    size_t cap = (size_t)N * 64 + 4096, n = 0;
    char *t = malloc(cap);
    n += (size_t)snprintf(t + n, cap - n, ".kernel chain\n.param k scalar u32\n.reg u32");
    for (unsigned i = 0; i <= N; i++)
        n += (size_t)snprintf(t + n, cap - n, "%s %%r%u", i ? "," : "", i);
    n += (size_t)snprintf(t + n, cap - n, "\n.reg bool %%r%u\n    param.u32 %%r0, k, 0\n    loop\n",
                          N + 1);
    for (unsigned i = 1; i < N; i++)
        n += (size_t)snprintf(t + n, cap - n, "        mov.u32 %%r%u, %%r%u\n", i, i + 1);
    n += (size_t)snprintf(t + n, cap - n,
                          "        sreg.u32 %%r%u, unit_pos.x\n        eq.u32 %%r%u, %%r0, %%r0\n"
                          "        if %%r%u\n            break\n        end\n    end\n.end\n",
                          N, N + 1, N + 1);
    cvm_diag dg;
    cvm_bc_module *m = NULL;
    cvm_bc_verified *v = NULL;
    if (cvm_bc_assemble(t, n, "chain", NULL, NULL, &m, &dg) || cvm_bc_verify(m, &v, &dg)) {
        ok(0, "chain kernel verifies: %s", dg.message);
    } else {
        is_int(v->kernels[0].reg_uni[1], CVM_UNI_VARYING, "the first link of a %u-long chain varies", N);
        is_int(v->kernels[0].reg_uni[0], CVM_UNI_GRID, "the parameter stays grid");
    }
    cvm_bc_verified_free(m, v);
    cvm_bc_module_free(m);
    free(t);
}

int main(void)
{
    pathlist all = {0};
    walk(&all, "docs/examples");
    walk(&all, "tests");
    qsort(all.p, all.n, sizeof *all.p, cmp_str);
    int nerr = 0, nuni = 0;
    for (size_t i = 0; i < all.n; i++) {
        const char *b = base(all.p[i]);
        bool is_err = strncmp(b, "err_", 4) == 0;
        bool in_verify = strstr(all.p[i], "tests/verify/") != NULL;
        if (is_err && in_verify) {
            test_err_file(all.p[i]);
            nerr++;
        } else if (in_verify && strncmp(b, "uni_", 4) == 0) {
            test_uni_file(all.p[i]);
            nuni++;
        }
        if (is_err)
            continue;
        cvm_diag dg;
        cvm_bc_module *m = assemble(all.p[i], &dg);
        if (!m) {
            ok(0, "%s assembles: %s", all.p[i], dg.message);
            continue;
        }
        /* every valid .cbs in the repository verifies, syntax tests included */
        int insane = 0;
        cvm_status st = verify_once(m, &dg, &insane);
        {
            ok(st == CVM_OK && !insane, "%s verifies", all.p[i]);
            if (st)
                diag("  %s", dg.message);
        }
        cvm_bc_module_free(m);
    }
    ok(nerr >= 25, "%d golden error files (at least 25)", nerr);
    ok(nuni >= 5, "%d divergence files", nuni);
    test_base_facts();
    test_return_mask();
    test_long_chain();
    test_mutations();
    for (size_t i = 0; i < all.n; i++)
        if (strncmp(base(all.p[i]), "err_", 4) != 0)
            test_corruption(all.p[i]);
    for (size_t i = 0; i < all.n; i++)
        free(all.p[i]);
    free(all.p);
    return done_testing();
}
