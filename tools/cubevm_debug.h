/*
 * cubevm_debug.h - the two rooms of `cubevm debug`: the session
 * (cubevm_debug.c: commands, breakpoints, stepping, the launch's hook) and
 * the values (cubevm_debug_values.c: reading names, registers and memory
 * in every lane of a plane, print and x). docs/debugging.md.
 */
#ifndef CUBEVM_DEBUG_H
#define CUBEVM_DEBUG_H

#include "cubevm_cli.h"

#define MAX_BREAKS 64
#define MAX_WORDS 32

typedef enum mode { M_CONTINUE, M_STEP, M_NEXT, M_STEPI, M_FINISH, M_START, M_END } mode;

/* A number as a debugger compares it: an integer exactly (its sign and
 * magnitude), else a double. */
typedef struct number {
    bool integer, neg;
    uint64_t mag;
    double d;
} number;

typedef enum cmp_op { OP_NONE, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE } cmp_op;

typedef struct breakpoint {
    unsigned id;
    bool temp;           /* tbreak, advance: deleted when it stops */
    char *file;      /* NULL: the line in any file */
    uint32_t line;
    unsigned hits;
    /* `if EXPR OP NUMBER`: stops when an active lane makes it true */
    cmp_op op;
    char expr[64];
    number value;
    char literal[32];   /* N as written */
} breakpoint;

#define MAX_DISPLAYS 16

typedef struct source {
    char *path;
    char *text;      /* NULL when it could not be read */
    char **lines;    /* line i (1-based) starts at lines[i - 1] */
    uint32_t nlines;
    struct source *next;
} source;

typedef struct dbg {
    const cvm_kernel *k;
    const cvm_launch_config *cfg;
    FILE *in;
    bool prompt;
    breakpoint bps[MAX_BREAKS];
    unsigned nbps, next_id;
    mode mode;
    unsigned count;          /* stops still to skip (step 3) */
    /* the stopped plane, and where a step started */
    uint32_t cube[3], plane, depth0;
    bool line0;              /* the stop is on a source line (a step has one to leave) */
    uint64_t steps0;
    bool faulted, quit;
    uint32_t view_plane;     /* UINT32_MAX: the stopped plane */
    uint32_t lane;           /* the lane `x` reads memory for */
    const cvm_debug_where *w;
    const cvm_debug_stop *at;
    source *sources;
    size_t printed;          /* kernel text written out by the hook */
    unsigned values;         /* $N of print */
    struct display {
        char *expr;
        bool hex;            /* display/x */
    } displays[MAX_DISPLAYS]; /* printed at every stop */
    unsigned ndisplays;
    uint32_t lane_sel;       /* `lane N` (UINT32_MAX: none): x and info read it while it exists */
    char last[1024];         /* the command an empty line repeats */
    /* per pc (made at run or start): its line as an id (0: none) and the
     * inlined calls around it (at most MAX_DEPTH - 1) */
    uint32_t ncode;
    uint32_t *pc_line;
    uint8_t *pc_depth;
    /* per plane of the running cube: the last line it ran at each depth, its
     * last pc and depth (line starts are seen as the planes run) */
    uint32_t run_cube[3];
    bool cube_known;
    uint32_t cap_planes;
    uint32_t *last_line;
    uint8_t *last_depth;
    uint32_t list_next;      /* the line a bare `list` starts at next (0: around the stop) */
    uint32_t frame_sel;      /* up/down/frame: the inlined call print and info look at (0:
                                the innermost) */
    bool input_failed;       /* the commands could not be read (an error was printed) */
    char fault[400];         /* the fault the session stopped at */
} dbg;

#define MAX_DEPTH 32

/* What a name reads: a register of a scalar or line type, or a pointer. */
typedef struct value {
    bool ptr;
    cvm_elem elem;          /* scalars */
    cvm_debug_space space;  /* pointers */
    uint32_t reg, line;
    const char *name;
} value;

/* ---- cubevm_debug.c ---- */

/* Inlined calls around pc (from the per-pc table once the kernel runs). */
uint32_t dbg_frame_depth(const dbg *g, uint32_t pc);
/* The mask of a plane's `lanes` lanes. */
uint64_t dbg_live_mask(uint32_t lanes);
/* "0-31", "0-3,8-11": the lanes set in mask ("none"). */
void dbg_mask_text(uint64_t mask, uint32_t lanes, char *buf, size_t cap);

/* ---- cubevm_debug_values.c ---- */

/* The plane print and info read (the stopped one, or `plane N`'s), its state
 * and pc; and the frame they look at (the innermost, or up/down's). */
uint32_t dbg_view_pc(const dbg *g, uint32_t *out_plane, cvm_debug_plane_info *info);
uint32_t dbg_view_frame(const dbg *g, uint32_t pc);
/* print[/x] EXPR in every lane of the plane, as "$N = ..." or "LABEL = ..."
 * (a display); x/N<type> PTR in the current lane. */
void dbg_print(dbg *g, const char *fmt, const char *expr, const char *label);
void dbg_examine(dbg *g, const char *fmt, const char *expr);
/* One register value as text: a pointer by the memory it points into. */
void dbg_print_bits(FILE *f, const dbg *g, cvm_elem e, cvm_debug_space space, uint64_t bits,
                    bool hex);
/* Conditions: a name looked up once at pc (*builtin: threadIdx-style; false
 * when it is no number there), then read in each lane, and compared. */
bool dbg_resolve_number(const dbg *g, const char *name, uint32_t pc, value *v, bool *builtin);
bool dbg_number_at(const dbg *g, const char *name, const value *v, bool builtin, uint32_t plane,
                   uint32_t lane, number *out);
number dbg_int_number(bool neg, uint64_t mag);
bool dbg_compare(cmp_op op, number a, number b);

#endif /* CUBEVM_DEBUG_H */
