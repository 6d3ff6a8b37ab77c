/*
 * cubevm_debug.c - `cubevm debug`: `cubevm run` with the launch under a
 * step debugger (cvm_launch_debug). Commands come from a file (--commands)
 * or standard input, gdb's and cuda-gdb's words where they exist: break,
 * run, start, continue, step, next, stepi, finish, print, x, info, list,
 * backtrace, plane, lane, quit. The launch calls hook() before every
 * instruction; hook() decides whether this one is a stop, and reads
 * commands until one resumes the launch. What names read and how values
 * print is cubevm_debug_values.c's. docs/debugging.md.
 */
#include "cubevm_debug.h"

#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *const op_names[] = {"", "==", "!=", "<", "<=", ">", ">="};

/* Ctrl-C while the kernel runs: the next instruction is a stop. */
static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    interrupted = 1;
}

/* ---- source text and positions ---- */

static source *source_get(dbg *g, const char *path)
{
    for (source *s = g->sources; s; s = s->next)
        if (!strcmp(s->path, path))
            return s;
    source *s = calloc(1, sizeof *s);
    if (!s || !(s->path = strdup(path))) {
        free(s);
        return NULL;
    }
    s->next = g->sources;
    g->sources = s;
    /* only a regular file, and not a huge one: the name comes from the module */
    struct stat st;
    FILE *f = fopen(path, "rb");
    if (!f)
        return s;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > (16 << 20)) {
        fclose(f);
        return s;
    }
    size_t cap = 4096, len = 0;
    char *t = malloc(cap);
    for (size_t r; t && (r = fread(t + len, 1, cap - len - 1, f)) > 0;) {
        len += r;
        if (cap - len < 2) {
            char *n = realloc(t, cap * 2);
            if (!n) {
                free(t);
                t = NULL;
            }
            t = n;
            cap *= 2;
        }
    }
    fclose(f);
    if (!t)
        return s;
    t[len] = 0;
    uint32_t n = 1;
    for (size_t i = 0; i < len; i++)
        n += t[i] == '\n';
    s->lines = malloc(n * sizeof *s->lines);
    if (!s->lines) {
        free(t);
        return s;
    }
    s->text = t;
    s->lines[0] = t;
    s->nlines = 1;
    for (size_t i = 0; i < len; i++)
        if (t[i] == '\n') {
            t[i] = 0;
            if (i + 1 < len)
                s->lines[s->nlines++] = t + i + 1;
        }
    return s;
}

static void show_source_line(dbg *g, const char *file, uint32_t line)
{
    source *s = file ? source_get(g, file) : NULL;
    if (s && s->text && line >= 1 && line <= s->nlines)
        printf("%u\t%s\n", line, s->lines[line - 1]);
}

/* Inlined calls around pc, from the module (at most MAX_DEPTH - 1). */
static uint32_t calls_around(const cvm_kernel *k, uint32_t pc)
{
    cvm_debug_frame f;
    uint32_t n = 0;
    while (n < MAX_DEPTH - 1 && cvm_debug_frame_at(k, pc, n, &f) == CVM_OK)
        n++;
    return n;
}

/* The same from the table once it is made (the kernel runs). */
uint32_t dbg_frame_depth(const dbg *g, uint32_t pc)
{
    return g->pc_depth && pc < g->ncode ? g->pc_depth[pc] : calls_around(g->k, pc);
}

/* The per-pc tables: a line id for each (file, line) and the depth. */
static bool make_tables(dbg *g)
{
    g->ncode = cvm_debug_code_size(g->k);
    g->pc_line = calloc(g->ncode ? g->ncode : 1, sizeof *g->pc_line);
    g->pc_depth = calloc(g->ncode ? g->ncode : 1, 1);
    const char *files[64];
    uint32_t nfiles = 0;
    if (!g->pc_line || !g->pc_depth)
        return false;
    for (uint32_t pc = 0; pc < g->ncode; pc++) {
        const char *f;
        uint32_t line;
        g->pc_depth[pc] = (uint8_t)calls_around(g->k, pc);
        if (cvm_debug_line(g->k, pc, &f, &line, NULL) != CVM_OK || !line || line >= (1u << 24))
            continue;
        uint32_t i = 0;
        while (i < nfiles && strcmp(files[i], f) != 0)
            i++;
        if (i == nfiles && nfiles < 64)
            files[nfiles++] = f;
        g->pc_line[pc] = line | (i & 63) << 24; /* past 64 files, two may share ids */
    }
    return true;
}

/* Whether the plane of w starts a source line with this instruction, as it
 * runs: its line differs from the last one it ran at this depth of inlined
 * calls (a call's body is deeper; the caller's line after the call is not
 * a new start). A loop's next iteration starts its header's line again
 * when the body is on other lines; a loop on one line is one line, as in
 * gdb. Called once per hook call: it records the plane's position. */
static bool line_start(dbg *g, const cvm_debug_where *w)
{
    if (!g->cube_known || memcmp(g->run_cube, w->cube, sizeof g->run_cube) != 0 ||
        w->planes > g->cap_planes) {
        if (w->planes > g->cap_planes) {
            uint32_t *ll = realloc(g->last_line, (size_t)w->planes * MAX_DEPTH * sizeof *ll);
            if (ll)
                g->last_line = ll;
            uint8_t *ld = realloc(g->last_depth, w->planes);
            if (ld)
                g->last_depth = ld;
            if (!ll || !ld)
                return false;
            g->cap_planes = w->planes;
        }
        memcpy(g->run_cube, w->cube, sizeof g->run_cube);
        g->cube_known = true;
        memset(g->last_line, 0, (size_t)g->cap_planes * MAX_DEPTH * sizeof *g->last_line);
        memset(g->last_depth, 0, g->cap_planes);
    }
    if (w->pc >= g->ncode || w->plane >= g->cap_planes)
        return false;
    uint32_t p = w->plane, d = g->pc_depth[w->pc], line = g->pc_line[w->pc];
    uint32_t *last = g->last_line + (size_t)p * MAX_DEPTH;
    for (uint32_t k = d + 1; k <= g->last_depth[p] && k < MAX_DEPTH; k++)
        last[k] = 0; /* the calls it has left */
    /* entering a call: its first instructions (the block around its body)
     * still carry the call's line, which is no line of the callee */
    bool inherited = d > 0 && !last[d] && line == last[d - 1];
    bool start = line && !inherited && last[d] != line;
    if (line && !inherited)
        last[d] = line;
    g->last_depth[p] = (uint8_t)d;
    return start;
}

uint64_t dbg_live_mask(uint32_t lanes)
{
    return lanes >= 64 ? UINT64_MAX : (UINT64_C(1) << lanes) - 1;
}

static const char *base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* "0-31", "0-3,8-11": the lanes set in mask. */
void dbg_mask_text(uint64_t mask, uint32_t lanes, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (uint32_t l = 0; l < lanes && n < cap;) {
        if (!(mask >> l & 1)) {
            l++;
            continue;
        }
        uint32_t e = l;
        while (e + 1 < lanes && (mask >> (e + 1) & 1))
            e++;
        n += (size_t)snprintf(buf + n, cap - n, e > l ? "%s%u-%u" : "%s%u", n ? "," : "", l, e);
        l = e + 1;
    }
    if (!n)
        snprintf(buf, cap, "none");
}

static void show_where(dbg *g, const char *why)
{
    const cvm_debug_where *w = g->w;
    const char *file = NULL;
    uint32_t line = 0, col = 0;
    char lanes[200], insn[160] = "";
    dbg_mask_text(w->active, w->lanes, lanes, sizeof lanes);
    printf("%scube (%u,%u,%u) plane %u, lanes %s active", why, w->cube[0], w->cube[1], w->cube[2],
           w->plane, lanes);
    if (cvm_debug_line(g->k, w->pc, &file, &line, &col) == CVM_OK) {
        cvm_debug_frame fr;
        if (cvm_debug_frame_at(g->k, w->pc, 0, &fr) == CVM_OK)
            printf(", in %s", fr.function);
        printf(", at %s:%u\n", base_name(file), line);
    } else {
        printf("\n");
    }
    if (g->mode == M_STEPI || !file) {
        cvm_debug_insn_text(g->k, w->pc, insn, sizeof insn); /* a walk from pc 0: only when shown */
        printf("pc %u: %s\n", w->pc, insn);
    }
    else
        show_source_line(g, file, line);
}

static void cmd_info_locals(dbg *g, bool args)
{
    cvm_debug_plane_info info;
    uint32_t plane, pc = dbg_view_pc(g, &plane, &info), depth = dbg_view_frame(g, pc);
    cvm_debug_var v;
    unsigned shown = 0;
    const char **seen = calloc(1, sizeof *seen); /* names listed: an outer one of the same name is hidden */
    size_t nseen = 0;
    for (uint32_t i = 0; seen && cvm_debug_var_at(g->k, pc, i, &v) == CVM_OK; i++) {
        if (v.frame != depth || args != (v.param != 0))
            continue;
        bool hidden = false;
        for (size_t j = 0; j < nseen && !hidden; j++)
            hidden = !strcmp(seen[j], v.name);
        const char **more = hidden ? seen : realloc(seen, (nseen + 1) * sizeof *seen);
        if (!more)
            break;
        seen = more;
        if (hidden)
            continue;
        seen[nseen++] = v.name;
        cvm_debug_type t;
        cvm_debug_reg_type(g->k, v.reg, &t);
        uint64_t bits = 0;
        uint32_t l = g->lane < info.lanes && (info.active >> g->lane & 1) ? g->lane
                   : info.active ? (uint32_t)__builtin_ctzll(info.active) : 0;
        cvm_debug_read_reg(g->at, plane, v.reg, 0, l, &bits);
        printf("%s = ", v.name);
        dbg_print_bits(stdout, g, t.elem, t.space, bits, false);
        printf("%s  (lane %u; 'print %s' for every lane)\n", t.line > 1 ? ", ..." : "", l, v.name);
        shown++;
    }
    free(seen);
    if (!shown)
        printf("no %s here\n", args ? "arguments" : "locals");
}

static void cmd_planes(dbg *g)
{
    static const char *const names[] = {"runnable", "waiting at a barrier", "finished", "faulted"};
    for (uint32_t p = 0; p < g->w->planes; p++) {
        cvm_debug_plane_info info;
        if (cvm_debug_plane(g->at, p, &info) != CVM_OK)
            continue;
        const char *file;
        uint32_t line = 0;
        char lanes[200];
        dbg_mask_text(info.active, info.lanes, lanes, sizeof lanes);
        printf("%s plane %u: %s, pc %u", p == g->w->plane ? "*" : " ", p,
               names[info.state <= CVM_DEBUG_FAULTED ? info.state : 3], info.pc);
        if (info.state != CVM_DEBUG_DONE && cvm_debug_line(g->k, info.pc, &file, &line, NULL) == CVM_OK)
            printf(" (%s:%u)", base_name(file), line);
        printf(", lanes %s active, %llu instructions\n", lanes, (unsigned long long)info.steps);
    }
}

/* "#N  FUNCTION at FILE:LINE" of frame n (0: the innermost) around pc. */
static void frame_line(const dbg *g, uint32_t pc, uint32_t n)
{
    cvm_debug_frame f;
    const char *file = "?", *fn;
    uint32_t line = 0;
    cvm_kernel_info ki;
    cvm_kernel_info_get(g->k, &ki);
    if (n == 0) {
        cvm_debug_line(g->k, pc, &file, &line, NULL);
    } else if (cvm_debug_frame_at(g->k, pc, n - 1, &f) == CVM_OK) {
        file = f.file;
        line = f.line;
    }
    fn = cvm_debug_frame_at(g->k, pc, n, &f) == CVM_OK ? f.function : ki.name;
    printf("#%u  %s at %s:%u\n", n, fn, base_name(file), line);
}

/* up [N], down [N], frame [N]: which inlined call print and info look at. */
static void cmd_frame(dbg *g, const char *c, char **w, int n)
{
    cvm_debug_plane_info info;
    uint32_t plane, pc = dbg_view_pc(g, &plane, &info), depth = dbg_frame_depth(g, pc);
    uint64_t k = 1;
    if (n > 1 && (!cli_parse_u64(w[1], &k) || k > MAX_DEPTH)) {
        printf("%s: expected a frame count or number\n", c);
        return;
    }
    if (!strcmp(c, "frame")) {
        if (n > 1 && k > depth) {
            printf("frame: no frame %llu (the innermost is 0, the kernel %u)\n", (unsigned long long)k, depth);
            return;
        }
        if (n > 1)
            g->frame_sel = (uint32_t)k;
    } else if (!strcmp(c, "up")) {
        if (g->frame_sel >= depth) {
            printf("up: the kernel is the outermost frame\n");
            return;
        }
        g->frame_sel = g->frame_sel + k > depth ? depth : g->frame_sel + (uint32_t)k;
    } else {
        if (g->frame_sel == 0) {
            printf("down: frame 0 is the innermost\n");
            return;
        }
        g->frame_sel = k > g->frame_sel ? 0 : g->frame_sel - (uint32_t)k;
    }
    frame_line(g, pc, g->frame_sel);
}

static void cmd_backtrace(dbg *g)
{
    cvm_debug_plane_info info;
    uint32_t plane, pc = dbg_view_pc(g, &plane, &info);
    const char *file = "?";
    uint32_t line = 0, n = 0;
    cvm_debug_line(g->k, pc, &file, &line, NULL);
    cvm_debug_frame f;
    cvm_kernel_info ki;
    cvm_kernel_info_get(g->k, &ki);
    for (; cvm_debug_frame_at(g->k, pc, n, &f) == CVM_OK; n++) {
        printf("#%u  %s at %s:%u (inlined)\n", n, f.function, base_name(file), line);
        file = f.file;
        line = f.line;
    }
    if (line)
        printf("#%u  %s at %s:%u\n", n, ki.name, base_name(file), line);
    else /* a module without line info (assembled .cbs without .loc) */
        printf("#%u  %s at pc %u (the module has no line for it)\n", n, ki.name, pc);
}

static void cmd_list(dbg *g, const char *arg)
{
    const char *file = NULL;
    uint32_t line = 0;
    cvm_debug_plane_info info;
    uint32_t plane;
    if (g->w) {
        dbg_view_pc(g, &plane, &info);
        cvm_debug_line(g->k, info.pc, &file, &line, NULL);
    } else {
        cvm_debug_line(g->k, 0, &file, &line, NULL);
    }
    uint64_t at;
    if (arg && (!cli_parse_u64(arg, &at) || at > UINT32_MAX)) {
        printf("list: expected a line number\n");
        return;
    }
    source *s = file ? source_get(g, file) : NULL;
    if (!s || !s->text) {
        printf("list: no source text%s%s\n", file ? " for " : "", file ? file : "");
        return;
    }
    /* LINE: around it; again: the next ten (gdb's habit); else around the stop */
    uint32_t from = arg ? (at > 5 ? (uint32_t)at - 5 : 1) : g->list_next ? g->list_next
                  : line > 5 ? line - 5 : 1;
    if (from > s->nlines) {
        printf("list: line %u is past the end of %s (%u lines)\n", arg ? (uint32_t)at : from,
               base_name(file), s->nlines);
        return;
    }
    uint32_t l = from;
    for (; l < from + 10 && l <= s->nlines; l++)
        printf("%u\t%s\n", l, s->lines[l - 1]);
    g->list_next = l;
}

/* ---- breakpoints ---- */

/* `if EXPR OP NUMBER` (the words after `if`, spaces optional) into b; false
 * after saying what is wrong. */
static bool parse_condition(dbg *g, breakpoint *b, char **w, int n, uint32_t pc)
{
    char text[256] = "";
    for (int i = 0; i < n; i++) {
        if (strlen(text) + strlen(w[i]) >= sizeof text) {
            printf("break: the condition is too long\n");
            return false;
        }
        strcat(text, w[i]);
    }
    static const struct {
        const char *s;
        cmp_op op;
    } ops[] = {{"==", OP_EQ}, {"!=", OP_NE}, {"<=", OP_LE}, {">=", OP_GE}, {"<", OP_LT}, {">", OP_GT}};
    char *at = NULL;
    unsigned k = 0;
    for (; k < sizeof ops / sizeof *ops && !at; k++)
        at = strstr(text, ops[k].s);
    char *end = NULL;
    if (at) {
        k--;
        *at = 0;
        const char *lit = at + strlen(ops[k].s);
        uint64_t u;
        bool neg = *lit == '-';
        if (cli_parse_u64(lit + neg, &u)) {
            b->value = dbg_int_number(neg, u);
            end = (char *)lit + strlen(lit);
        } else {
            b->value = (number){.d = strtod(lit, &end)};
        }
        snprintf(b->literal, sizeof b->literal, "%.31s", lit);
    }
    if (!at || !text[0] || strlen(text) >= sizeof b->expr || !end || end == at + strlen(ops[k].s) ||
        *end) {
        printf("break: the condition must be EXPR OP NUMBER (OP: == != < <= > >=), e.g. 'if i == 37'\n");
        return false;
    }
    value v;
    bool builtin;
    const uint32_t sel = g->frame_sel;
    g->frame_sel = 0; /* the breakpoint's own frame, whatever up selected */
    bool ok = dbg_resolve_number(g, text, pc, &v, &builtin);
    g->frame_sel = sel;
    if (!ok) {
        printf("break: '%s' is no number at the breakpoint: a variable in scope there (not a pointer "
               "or a line), %%rN or a threadIdx-style name\n", text);
        return false;
    }
    memcpy(b->expr, text, strlen(text) + 1); /* it fits: checked above */
    b->op = ops[k].op;
    return true;
}

static void cmd_break(dbg *g, char **w, int nw, bool temp)
{
    const char *loc = nw > 1 ? w[1] : NULL;
    if (!loc) {
        printf("break: expected LINE or FILE:LINE [if EXPR OP NUMBER]\n");
        return;
    }
    if (nw > 2 && strcmp(w[2], "if") != 0) {
        printf("break: expected 'if' after the location, not '%s'\n", w[2]);
        return;
    }
    if (g->nbps == MAX_BREAKS) {
        printf("break: at most %d breakpoints\n", MAX_BREAKS);
        return;
    }
    const char *colon = strrchr(loc, ':');
    uint64_t line;
    if (!cli_parse_u64(colon ? colon + 1 : loc, &line) || !line || line > UINT32_MAX) {
        printf("break: '%s': expected LINE or FILE:LINE\n", loc);
        return;
    }
    char *file = colon ? strndup(loc, (size_t)(colon - loc)) : NULL;
    const char *main_file = NULL; /* a bare LINE is in the kernel's own file (that of its first pc) */
    if (!colon)
        cvm_debug_line(g->k, 0, &main_file, NULL, NULL);
    /* where does it stop: the first instruction of each run of that line */
    uint32_t first = UINT32_MAX, n = cvm_debug_code_size(g->k);
    for (uint32_t pc = 0; pc < n && first == UINT32_MAX; pc++) {
        const char *f;
        uint32_t l;
        if (cvm_debug_line(g->k, pc, &f, &l, NULL) == CVM_OK && l == line &&
            (file ? !strcmp(f, file) || !strcmp(base_name(f), file) : !main_file || !strcmp(f, main_file)))
            first = pc;
    }
    if (first == UINT32_MAX && file) {
        char names[300] = "";
        const char *prev = NULL;
        for (uint32_t pc = 0; pc < n; pc++) { /* the kernel's files, for the message */
            const char *f;
            if (cvm_debug_line(g->k, pc, &f, NULL, NULL) != CVM_OK || (prev && !strcmp(prev, f)) ||
                strstr(names, base_name(f)))
                continue;
            prev = f;
            if (strlen(names) + strlen(base_name(f)) + 3 < sizeof names)
                snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s",
                         names[0] ? ", " : "", base_name(f));
        }
        printf("break: no code at %s (the kernel's files, by the name given or their base name: %s)\n",
               loc, names[0] ? names : "none");
        free(file);
        return;
    }
    if (first == UINT32_MAX) {
        printf("break: no code at %s (the kernel has no instruction from that line)\n", loc);
        free(file);
        return;
    }
    if (!file && main_file && !(file = strdup(main_file))) {
        printf("break: out of memory\n");
        return;
    }
    breakpoint nb = {.file = file, .line = (uint32_t)line};
    if (nw > 2 && !parse_condition(g, &nb, w + 3, nw - 3, first)) {
        free(file);
        return;
    }
    nb.id = ++g->next_id;
    nb.temp = temp;
    g->bps[g->nbps++] = nb;
    printf("%s %u at %s (pc %u)", temp ? "Temporary breakpoint" : "Breakpoint", nb.id, loc, first);
    if (nb.op)
        printf(" if %s %s %s", nb.expr, op_names[nb.op], nb.literal);
    printf("\n");
}

/* Deletes breakpoint `id`; false when there is none. */
static bool delete_breakpoint(dbg *g, uint64_t id)
{
    for (unsigned i = 0; i < g->nbps; i++)
        if (g->bps[i].id == id) {
            free(g->bps[i].file);
            memmove(&g->bps[i], &g->bps[i + 1], (g->nbps - i - 1) * sizeof *g->bps);
            g->nbps--;
            return true;
        }
    return false;
}

static void cmd_delete(dbg *g, char **w, int n)
{
    if (n == 1) {
        for (unsigned i = 0; i < g->nbps; i++)
            free(g->bps[i].file);
        g->nbps = 0;
        return;
    }
    for (int a = 1; a < n; a++) {
        uint64_t id;
        if (!cli_parse_u64(w[a], &id) || !delete_breakpoint(g, id))
            printf("delete: no breakpoint %s\n", w[a]);
    }
}

/* The breakpoint the plane of g->w stands at (before its instruction, which
 * starts a line: `starts`) whose condition an active lane meets (*out_lane:
 * the first such lane), or NULL. */
static breakpoint *break_at(dbg *g, bool starts, uint32_t *out_lane)
{
    const cvm_debug_where *w = g->w;
    if (!g->nbps || !w->active || !starts)
        return NULL;
    const char *f;
    uint32_t l;
    if (cvm_debug_line(g->k, w->pc, &f, &l, NULL) != CVM_OK)
        return NULL;
    for (unsigned i = 0; i < g->nbps; i++) {
        breakpoint *b = &g->bps[i];
        if (b->line != l || (b->file && strcmp(b->file, f) != 0 && strcmp(b->file, base_name(f)) != 0))
            continue;
        value v;
        bool builtin = false;
        if (b->op && !dbg_resolve_number(g, b->expr, w->pc, &v, &builtin))
            continue; /* not readable here (parse_condition checked it at the line's first pc) */
        for (uint32_t lane = 0; lane < w->lanes; lane++) {
            number x;
            if ((w->active >> lane & 1) &&
                (!b->op || (dbg_number_at(g, b->expr, &v, builtin, w->plane, lane, &x) &&
                            dbg_compare(b->op, x, b->value)))) {
                *out_lane = b->op ? lane : UINT32_MAX; /* only a condition names a lane */
                return b;
            }
        }
    }
    return NULL;
}

static void info_display(const dbg *g)
{
    for (unsigned i = 0; i < g->ndisplays; i++)
        printf("%u: print%s %s\n", i + 1, g->displays[i].hex ? "/x" : "", g->displays[i].expr);
    if (!g->ndisplays)
        printf("no displays\n");
}

static void info_breakpoints(const dbg *g)
{
    for (unsigned i = 0; i < g->nbps; i++) {
        const breakpoint *b = &g->bps[i];
        printf("%u  %s%s%u", b->id, b->file ? base_name(b->file) : "", b->file ? ":" : "line ", b->line);
        if (b->op)
            printf(" if %s %s %s", b->expr, op_names[b->op], b->literal);
        printf("  (%u hits)%s\n", b->hits, b->temp ? " temporary" : "");
    }
    if (!g->nbps)
        printf("no breakpoints\n");
}

/* Display i (0-based) at a stop: "1: tid = 5  (...)". */
static void show_display(dbg *g, unsigned i)
{
    char label[96];
    snprintf(label, sizeof label, "%u: %s", i + 1, g->displays[i].expr);
    dbg_print(g, g->displays[i].hex ? "x" : NULL, g->displays[i].expr, label);
}

/* display[/x] EXPR: print it now and at every stop; undisplay [N...]. */
static void cmd_display(dbg *g, const char *fmt, const char *expr, char **w, int n, bool add)
{
    if (fmt && strcmp(fmt, "x") != 0) {
        printf("display/%s: only /x (hexadecimal) is a format\n", fmt);
        return;
    }
    if (add) {
        if (!expr) {
            for (unsigned i = 0; g->w && i < g->ndisplays; i++)
                show_display(g, i);
            if (!g->w)
                printf("display: the kernel is not running ('info display' lists them)\n");
            return;
        }
        if (g->ndisplays == MAX_DISPLAYS) {
            printf("display: at most %d expressions\n", MAX_DISPLAYS);
            return;
        }
        char *e = strdup(expr);
        if (!e)
            return;
        g->displays[g->ndisplays++] = (struct display){e, fmt != NULL};
        if (g->w)
            show_display(g, g->ndisplays - 1);
        return;
    }
    if (n < 2) {
        while (g->ndisplays)
            free(g->displays[--g->ndisplays].expr);
        return;
    }
    for (int a = 1; a < n; a++) {
        uint64_t id;
        if (!cli_parse_u64(w[a], &id) || !id || id > g->ndisplays || !g->displays[id - 1].expr) {
            printf("undisplay: no display %s\n", w[a]);
            continue;
        }
        free(g->displays[id - 1].expr);
        g->displays[id - 1].expr = NULL;
    }
    unsigned k = 0; /* close the gaps; numbers shift down */
    for (unsigned i = 0; i < g->ndisplays; i++)
        if (g->displays[i].expr)
            g->displays[k++] = g->displays[i];
    g->ndisplays = k;
}

/* info WHAT: breakpoints and displays at any time, the rest while the kernel runs. */
static void cmd_info(dbg *g, const char *what)
{
    size_t wl = strlen(what);
    bool any = wl && (!strncmp(what, "locals", wl) || !strncmp(what, "args", wl) ||
                      !strncmp(what, "planes", wl) || !strncmp(what, "line", wl));
    if (wl && !strncmp(what, "breakpoints", wl))
        info_breakpoints(g);
    else if (wl && !strncmp(what, "display", wl))
        info_display(g);
    else if (any && !g->w)
        printf("info: the kernel is not running; 'run' or 'start' it first\n");
    else if (wl && !strncmp(what, "locals", wl))
        cmd_info_locals(g, false);
    else if (wl && !strncmp(what, "args", wl))
        cmd_info_locals(g, true);
    else if (wl && !strncmp(what, "planes", wl))
        cmd_planes(g);
    else if (wl && !strncmp(what, "line", wl))
        show_where(g, "");
    else
        printf("info: expected locals, args, planes, breakpoints, display or line\n");
}

/* ---- commands ---- */

static const char help_text[] =
    "commands (gdb's words; a unique prefix of a long one also works; 'help CMD' for one):\n"
    "  break LOC [if EXPR OP N] stop where a plane starts LOC (LINE in the kernel's file, or\n"
    "                           FILE:LINE) with an active lane meeting the condition: EXPR a\n"
    "                           variable, %rN or threadIdx/blockIdx/blockDim/gridDim.x|y|z, OP\n"
    "                           == != < <= > >=, N a number (b)\n"
    "  tbreak LOC [if ...]      a breakpoint deleted when it stops\n"
    "  advance LOC [if ...]     run to LOC (a temporary breakpoint there, then continue)\n"
    "  delete [N...]            delete breakpoints (all without N) (d)\n"
    "  run                      start the kernel; stop at a breakpoint (r)\n"
    "  start                    start the kernel and stop at its first instruction\n"
    "  continue [N]             go on to the next breakpoint (N: the Nth) (c)\n"
    "  step [N]                 run the stopped plane to its next source line (s)\n"
    "  next [N]                 the same, over inlined calls (n)\n"
    "  stepi [N]                one instruction (si)\n"
    "  finish                   run until the current inlined call returns\n"
    "  print[/x] EXPR           a value in every lane of the plane (p): a variable, a register\n"
    "                           %rN, threadIdx/blockIdx/blockDim/gridDim.x|y|z, or an element\n"
    "                           [(TYPE)]NAME[INDEX] of a pointer (TYPE, e.g. float or u8, for\n"
    "                           one that is no buffer parameter; INDEX: numbers, integer\n"
    "                           variables, %rN, threadIdx.x ... joined by + and -)\n"
    "  x/N<type> PTR            N (1-4096) elements of a type (f32, i32, u8, ...) where pointer\n"
    "                           variable PTR points, in the current lane\n"
    "  display[/x] [EXPR]       print EXPR now and at every stop (no EXPR: all of them now)\n"
    "  undisplay [N...]         drop displays (all without N)\n"
    "  lane [N]                 the lane x and info read, kept at later stops (default: the\n"
    "                           first active lane, or the one a condition or fault names)\n"
    "  plane [N]                print and info read plane N of the cube (no N: the stopped one)\n"
    "  info locals|args|planes|breakpoints|display|line\n"
    "  backtrace                inlined calls around the stop (bt, where)\n"
    "  up [N]                   print and info look at the caller's frame\n"
    "  down [N]                 ... back toward the stop\n"
    "  frame [N]                ... at frame N of backtrace (f)\n"
    "  list [LINE]              source lines around the stop, or the next ten (l)\n"
    "  help [CMD]               this list, or one command's lines (h)\n"
    "  quit                     end the launch and exit (q, kill; also the end of the commands)\n";

static const struct {
    const char *name, *alias;
} words[] = {
    {"break", "b"}, {"delete", "d"}, {"run", "r"}, {"start", NULL}, {"continue", "c"},
    {"step", "s"}, {"next", "n"}, {"stepi", "si"}, {"finish", NULL}, {"print", "p"},
    {"x", NULL}, {"lane", NULL}, {"plane", NULL}, {"info", "i"}, {"backtrace", "bt"},
    {"list", "l"}, {"quit", "q"}, {"help", "h"}, {"kill", NULL}, {"where", NULL},
    {"display", NULL}, {"undisplay", NULL}, {"tbreak", NULL}, {"advance", NULL}, {"up", NULL}, {"down", NULL}, {"frame", "f"},
};

static const char *command_of(const char *w);

/* help [COMMAND]: the whole list, or the lines about one command. */
static void cmd_help(const char *word)
{
    const char *c = word ? command_of(word) : NULL;
    if (!word) {
        fputs(help_text, stdout);
        return;
    }
    if (!c) {
        printf("help: no command '%s' (or more than one begins so)\n", word);
        return;
    }
    c = !strcmp(c, "kill") ? "quit" : !strcmp(c, "where") ? "backtrace" : c; /* listed under these */
    /* its entry: the line that names it (after two spaces) and the lines continuing it */
    bool in = false;
    for (const char *l = help_text; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        size_t cl = strlen(c);
        bool names = len > 2 + cl && l[0] == ' ' && l[1] == ' ' && l[2] != ' ' &&
                     (!strncmp(l + 2, c, cl) && !isalpha((unsigned char)l[2 + cl]));
        bool more = len > 3 && l[2] == ' ';
        if (names || (in && more)) {
            printf("%.*s\n", (int)len, l);
            in = true;
        } else {
            in = false;
        }
        l += len + (e ? 1 : 0);
    }
}

/* The command word w stands for (an alias, the whole word or a unique prefix), or NULL. */
static const char *command_of(const char *w)
{
    const char *found = NULL;
    size_t n = strlen(w);
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        if (!strcmp(w, words[i].name) || (words[i].alias && !strcmp(w, words[i].alias)))
            return words[i].name;
        if (!strncmp(w, words[i].name, n)) {
            if (found)
                return NULL;
            found = words[i].name;
        }
    }
    return found;
}

/* Splits line into words; "print/x v" gives "print", "v" and *fmt "x". */
static int split(char *line, char **w, char **fmt)
{
    int n = 0;
    *fmt = NULL;
    for (char *s = strtok(line, " \t\r\n"); s && n < MAX_WORDS; s = strtok(NULL, " \t\r\n"))
        w[n++] = s;
    if (n) {
        char *slash = strchr(w[0], '/');
        if (slash) {
            *slash = 0;
            *fmt = slash + 1;
        } else if (n > 1 && w[1][0] == '/') { /* gdb's spaced form: print /x v */
            *fmt = w[1] + 1;
            memmove(&w[1], &w[2], (size_t)(n - 2) * sizeof *w);
            n--;
        }
    }
    return n;
}

static unsigned count_arg(char **w, int n)
{
    uint64_t c;
    if (n < 2)
        return 1;
    if (!cli_parse_u64(w[1], &c) || !c || c > 1000000000) {
        printf("%s: expected a count >= 1\n", w[0]);
        return 0;
    }
    return (unsigned)c;
}

/* Reads and runs commands until one resumes (true) or quits (false). Before the
 * launch, `g->w` is NULL and only breakpoints, list, help, run/start and quit apply. */
static bool command_loop(dbg *g)
{
    char line[1024];
    for (;;) {
        if (g->prompt)
            printf("(cubevm) ");
        fflush(stdout); /* each answer as it is given, to a pipe too */
        if (!fgets(line, sizeof line, g->in)) {
            if (ferror(g->in)) {
                cli_error(CLI_FAIL, "debug: reading the commands failed: %s", strerror(errno));
                g->input_failed = true;
            }
            if (g->prompt)
                printf("\n");
            g->quit = true;
            return false;
        }
        size_t len = strlen(line);
        if (len + 1 < sizeof line && !feof(g->in) && line[len ? len - 1 : 0] != '\n') {
            /* fgets stopped early: a NUL byte; commands are text */
            cli_error(CLI_FAIL, "debug: the commands are not text (a NUL byte)");
            g->input_failed = g->quit = true;
            return false;
        }
        if (!strchr(line, '\n') && !feof(g->in)) {
            int ch;
            size_t skipped = 0;
            while ((ch = fgetc(g->in)) != EOF && ch != '\n' && ch != 0 && ++skipped < (1u << 20))
                ;
            if (ch != '\n' && ch != EOF) {
                cli_error(CLI_FAIL, "debug: the commands are not text (a NUL byte or a line over 1 MiB)");
                g->input_failed = g->quit = true;
                return false;
            }
            printf("command too long (at most %zu characters)\n", sizeof line - 2);
            continue;
        }
        /* at a terminal, an empty line repeats a step or continue (gdb's habit) */
        bool empty = strspn(line, " \t\r\n") == strlen(line);
        if (empty && g->prompt && g->last[0])
            snprintf(line, sizeof line, "%s", g->last);
        char *w[MAX_WORDS], *fmt;
        char copy[sizeof line];
        snprintf(copy, sizeof copy, "%s", line);
        int n = split(line, w, &fmt);
        if (!n || w[0][0] == '#')
            continue;
        const char *c = command_of(w[0]);
        g->last[0] = 0;
        if (c && (!strcmp(c, "step") || !strcmp(c, "next") || !strcmp(c, "stepi") ||
                  !strcmp(c, "continue")))
            snprintf(g->last, sizeof g->last, "%s", copy);
        else if (c && !strcmp(c, "list")) /* again: the next ten */
            snprintf(g->last, sizeof g->last, "list");
        if (!c) {
            char which[200] = "";
            for (size_t i = 0; i < sizeof words / sizeof *words; i++)
                if (!strncmp(w[0], words[i].name, strlen(w[0])) && strlen(which) + 20 < sizeof which)
                    snprintf(which + strlen(which), sizeof which - strlen(which), "%s%s",
                             which[0] ? ", " : "", words[i].name);
            if (which[0])
                printf("ambiguous command '%s': %s\n", w[0], which);
            else
                printf("unknown command '%s'; 'help' lists them\n", w[0]);
            continue;
        }
        bool live = g->w != NULL;
        /* an expression's words are one expression: `print (float) s[t + 1]` */
        char expr[sizeof line] = "";
        for (int i = 1; i < n; i++)
            strcat(expr, w[i]);
        bool takes_expr = !strcmp(c, "print") || !strcmp(c, "display") || !strcmp(c, "x");
        bool assigns = false; /* an '=' that is not part of == != <= >= */
        for (const char *e = expr; *e; e++)
            assigns |= *e == '=' && e[1] != '=' && (e == expr || !strchr("=!<>", e[-1]));
        if (takes_expr && assigns) {
            printf("%s: '%s': the debugger shows values; it does not assign them\n", c, expr);
            continue;
        }
        if (!strcmp(c, "quit") || !strcmp(c, "kill")) {
            g->quit = true;
            return false;
        } else if (!strcmp(c, "help")) {
            cmd_help(n > 1 ? w[1] : NULL);
        } else if (!strcmp(c, "display") || !strcmp(c, "undisplay")) {
            cmd_display(g, fmt, n > 1 ? expr : NULL, w, n, c[0] == 'd');
        } else if (!strcmp(c, "break") || !strcmp(c, "tbreak")) {
            cmd_break(g, w, n, c[0] == 't');
        } else if (!strcmp(c, "delete")) {
            cmd_delete(g, w, n);
        } else if (!strcmp(c, "list")) {
            cmd_list(g, n > 1 ? w[1] : NULL);
        } else if (!strcmp(c, "run") || !strcmp(c, "start")) {
            if (live) {
                printf("%s: the kernel is running already (one launch per session)\n", c);
                continue;
            }
            g->mode = !strcmp(c, "start") ? M_START : M_CONTINUE;
            g->count = 1;
            return true;
        } else if (!strcmp(c, "info")) {
            cmd_info(g, n > 1 ? w[1] : "");
        } else if (!live) {
            printf("%s: the kernel is not running; 'run' or 'start' it first\n", c);
        } else if (!strcmp(c, "advance")) {
            if (g->faulted) {
                printf("advance: the launch has faulted; 'continue' ends it, 'quit' leaves\n");
                continue;
            }
            unsigned before = g->nbps;
            cmd_break(g, w, n, true);
            if (g->nbps == before)
                continue; /* refused, with the reason */
            g->mode = M_CONTINUE;
            g->count = 1;
            return true;
        } else if (!strcmp(c, "continue") || !strcmp(c, "step") || !strcmp(c, "next") ||
                   !strcmp(c, "stepi") || !strcmp(c, "finish")) {
            if (g->faulted && strcmp(c, "continue") != 0) {
                printf("%s: the launch has faulted; 'continue' ends it, 'quit' leaves\n", c);
                continue;
            }
            if (g->faulted) {
                g->mode = M_END;
                return true;
            }
            unsigned cnt = !strcmp(c, "finish") ? 1 : count_arg(w, n);
            if (!cnt)
                continue;
            g->mode = !strcmp(c, "continue") ? M_CONTINUE : !strcmp(c, "step") ? M_STEP
                    : !strcmp(c, "next") ? M_NEXT : !strcmp(c, "stepi") ? M_STEPI : M_FINISH;
            if (g->mode == M_FINISH && g->depth0 == 0) {
                printf("finish: not in an inlined call (the kernel's own code)\n");
                continue;
            }
            g->count = cnt;
            return true;
        } else if (!strcmp(c, "print")) {
            if (n < 2)
                printf("print: expected an expression\n");
            else
                dbg_print(g, fmt, expr, NULL);
        } else if (!strcmp(c, "x")) {
            dbg_examine(g, fmt, n > 1 ? expr : NULL);
        } else if (!strcmp(c, "lane")) {
            uint64_t l;
            if (n < 2)
                printf("lane %u%s\n", g->lane, g->lane_sel == UINT32_MAX ? " (the first active)" : "");
            else if (!cli_parse_u64(w[1], &l) || l >= g->w->lanes)
                printf("lane: expected a lane from 0 to %u\n", g->w->lanes - 1);
            else
                g->lane = g->lane_sel = (uint32_t)l; /* kept at later stops */
        } else if (!strcmp(c, "plane")) {
            uint64_t p;
            if (n < 2) {
                g->view_plane = UINT32_MAX;
                printf("plane %u (stopped)\n", g->w->plane);
            } else if (!cli_parse_u64(w[1], &p) || p >= g->w->planes) {
                printf("plane: expected a plane from 0 to %u\n", g->w->planes - 1);
            } else {
                g->view_plane = (uint32_t)p == g->w->plane ? UINT32_MAX : (uint32_t)p;
                g->frame_sel = 0;
                cvm_debug_plane_info info;
                cvm_debug_plane(g->at, (uint32_t)p, &info);
                const char *file;
                uint32_t l = 0;
                printf("plane %u: pc %u", (unsigned)p, info.pc);
                if (cvm_debug_line(g->k, info.pc, &file, &l, NULL) == CVM_OK)
                    printf(", at %s:%u", base_name(file), l);
                printf("\n");
            }
        } else if (!strcmp(c, "up") || !strcmp(c, "down") || !strcmp(c, "frame")) {
            cmd_frame(g, c, w, n);
        } else if (!strcmp(c, "backtrace") || !strcmp(c, "where")) {
            cmd_backtrace(g);
        }
    }
}

/* A step of the plane of w starts where it stands. */
static void step_from(dbg *g, const cvm_debug_where *w)
{
    g->steps0 = w->steps;
    g->line0 = w->pc < g->ncode && g->pc_line[w->pc];
    g->depth0 = dbg_frame_depth(g, w->pc);
}

/* A step, next or finish of the stopped plane has arrived (`starts`: the
 * instruction starts a line). */
static bool step_done(dbg *g, const cvm_debug_where *w, bool starts)
{
    if (w->steps == g->steps0 || !w->active)
        return false; /* not run yet; or a marker the plane passes with no lane active */
    if (g->mode == M_STEPI || !g->line0) /* no line to leave: one instruction */
        return true;
    uint32_t depth = dbg_frame_depth(g, w->pc);
    if (g->mode == M_FINISH)
        return depth < g->depth0;
    if (!starts)
        return false;
    return g->mode != M_NEXT || depth <= g->depth0;
}

static int hook(void *user, const cvm_debug_where *w, const cvm_debug_stop *at)
{
    dbg *g = user;
    if (w->output_len) {
        fwrite(w->output, 1, w->output_len, stdout);
        g->printed += w->output_len;
    }
    if (g->quit)
        return 1;
    if (g->mode == M_END)
        return 0;
    const char *why = "";
    char whybuf[160];
    uint32_t hit_lane = UINT32_MAX;
    unsigned temp_hit = 0; /* a temporary breakpoint that stopped: deleted now */
    bool same = w->plane == g->plane && !memcmp(w->cube, g->cube, sizeof g->cube);
    bool starts = w->event == CVM_DEBUG_STEP && line_start(g, w);
    bool stop = false;
    if (w->event == CVM_DEBUG_FAULT) {
        printf("\nFault (lane %u): %s\n", w->fault_lane, w->fault ? w->fault : "(no message)");
        snprintf(g->fault, sizeof g->fault, "%s", w->fault ? w->fault : "(no message)");
        hit_lane = w->fault_lane;
        g->faulted = stop = true;
    } else if (interrupted && w->active) { /* where some lane runs */
        interrupted = 0;
        why = "\nInterrupted: ";
        stop = true;
    } else if (g->mode == M_START) {
        stop = true;
    } else {
        g->w = w; /* break_at reads the plane through them; cleared below unless it stops */
        g->at = at;
        breakpoint *b = same && w->steps == g->steps0 ? NULL : break_at(g, starts, &hit_lane);
        if (b) {
            b->hits++;
            temp_hit = b->temp ? b->id : 0;
            if (b->op)
                snprintf(whybuf, sizeof whybuf, "\nBreakpoint %u (lane %u: %s %s %s), ", b->id,
                         hit_lane, b->expr, op_names[b->op], b->literal);
            else
                snprintf(whybuf, sizeof whybuf, "\n%s %u, ", b->temp ? "Temporary breakpoint" : "Breakpoint",
                         b->id);
            why = whybuf;
            stop = g->mode == M_CONTINUE ? --g->count == 0 : true;
        }
        if (!stop && g->mode != M_CONTINUE) {
            if (!same) {
                /* the stepped plane waits at a barrier or has finished: follow the
                 * plane that runs now */
                cvm_debug_plane_info info;
                bool gone = memcmp(w->cube, g->cube, sizeof g->cube) != 0 ||
                            (cvm_debug_plane(at, g->plane, &info) == CVM_OK &&
                             info.state == CVM_DEBUG_DONE);
                if (gone) {
                    snprintf(whybuf, sizeof whybuf, "\n[plane %u of cube (%u,%u,%u) finished] ",
                             g->plane, g->cube[0], g->cube[1], g->cube[2]);
                    why = whybuf;
                    stop = true;
                }
            } else if (step_done(g, w, starts)) {
                stop = --g->count == 0;
                if (!stop) /* the next of N steps starts here */
                    step_from(g, w);
            }
        }
    }
    if (!stop) {
        g->w = NULL;
        g->at = NULL;
        return 0;
    }
    if (temp_hit)
        delete_breakpoint(g, temp_hit);
    g->w = w;
    g->at = at;
    memcpy(g->cube, w->cube, sizeof g->cube);
    g->plane = w->plane;
    g->view_plane = UINT32_MAX;
    g->list_next = 0;
    g->frame_sel = 0;
    /* the lane x and info read: the one a condition or fault names, else the
     * one `lane` chose, else the first active one */
    g->lane = hit_lane != UINT32_MAX                        ? hit_lane
            : g->lane_sel != UINT32_MAX && g->lane_sel < w->lanes ? g->lane_sel
            : w->active                                     ? (uint32_t)__builtin_ctzll(w->active)
                                                            : 0;
    if (!g->faulted || w->event == CVM_DEBUG_FAULT)
        show_where(g, why);
    for (unsigned i = 0; i < g->ndisplays; i++)
        show_display(g, i);
    step_from(g, w);
    fflush(stdout);
    bool go = command_loop(g);
    interrupted = 0; /* a Ctrl-C at the prompt is not a stop later */
    g->frame_sel = 0;    /* conditions see the innermost frame */
    g->w = NULL;
    g->at = NULL;
    fflush(stdout);
    return go ? 0 : 1;
}

int cli_debug_launch(cvm_stream *s, const cvm_kernel *k, const cvm_launch_config *cfg,
                     const cvm_arg *args, uint32_t n, FILE *in, size_t *out_printed,
                     cvm_status *out_st, cvm_diag *d)
{
    dbg g;
    memset(&g, 0, sizeof g);
    g.k = k;
    g.cfg = cfg;
    g.in = in;
    g.prompt = in == stdin && isatty(0);
    g.plane = UINT32_MAX;
    g.view_plane = UINT32_MAX;
    g.lane_sel = UINT32_MAX;
    *out_printed = 0;
    *out_st = CVM_OK;
    int rc = CLI_OK;
    /* Ctrl-C (SIGINT) stops a running kernel (a loop that never ends) at its
     * next instruction; at the prompt it does nothing (reads go on) */
    struct sigaction sa, old_sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_interrupt;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    interrupted = 0;
    sigaction(SIGINT, &sa, &old_sa);
    if (!command_loop(&g)) { /* quit before the kernel ran */
        rc = g.input_failed ? CLI_FAIL : -1;
        goto done;
    }
    if (!make_tables(&g)) {
        rc = cli_error(CLI_FAIL, "debug: out of memory");
        goto done;
    }
    interrupted = 0; /* a Ctrl-C before the launch is no stop in it */
    cvm_status st = cvm_launch_debug(s, k, cfg, args, n, hook, &g, d);
    if (!st)
        *out_st = cvm_stream_sync(s, d);
    if (st) {
        rc = cli_diag_error("launch", st, d);
        goto done;
    }
    *out_printed = g.printed;
    if (*out_st == CVM_CANCELED && g.faulted) { /* it ended at the fault: still a fault */
        rc = cli_error(CLI_FAIL, "kernel fault (the session ended at it): %s", g.fault);
    } else if (*out_st == CVM_CANCELED) {
        printf("[the launch was ended by the debugger]\n");
        rc = g.input_failed ? CLI_FAIL : -1;
    } else if (*out_st == CVM_OK) {
        printf("[the kernel has finished]\n");
    }
done:
    sigaction(SIGINT, &old_sa, NULL);
    for (unsigned i = 0; i < g.nbps; i++)
        free(g.bps[i].file);
    while (g.ndisplays)
        free(g.displays[--g.ndisplays].expr);
    free(g.pc_line);
    free(g.pc_depth);
    free(g.last_line);
    free(g.last_depth);
    fflush(stdout);
    struct stat in_st; /* commands a script file has left when the launch ended (not a pipe:
                        * a front end keeps it open) */
    if (!g.quit && in != stdin && fstat(fileno(in), &in_st) == 0 && S_ISREG(in_st.st_mode)) {
        char line[1024];
        unsigned left = 0;
        while (fgets(line, sizeof line, in))
            left += line[strspn(line, " \t\r\n")] && line[strspn(line, " \t\r\n")] != '#';
        if (left)
            printf("[%u command%s after the end of the launch not run]\n", left, left == 1 ? "" : "s");
    }
    while (g.sources) {
        source *src = g.sources;
        g.sources = src->next;
        free(src->path);
        free(src->text);
        free(src->lines);
        free(src);
    }
    fflush(stdout);
    return rc;
}
