/*
 * gen_isa.c - writes the op reference of docs/isa.md from bytecode/ops.def
 * and bytecode/sregs.def, so the documentation cannot drift from the table
 * every other consumer expands.
 *
 * A standalone build-time tool, not part of libcubevm or the cubevm binary:
 * it only expands the two .def files and the type-class macros of bc.h, and
 * links nothing of the library.
 *
 *   gen_isa                  print the generated region to stdout
 *   gen_isa --update FILE    replace the region of FILE between the markers
 *   gen_isa --check FILE     exit 1 (with a note) if FILE's region is stale
 *
 * Exit status: 0 ok, 1 out of date (--check), 2 usage, I/O or table error.
 */
#include "bytecode/bc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BEGIN_MARK "<!-- BEGIN GENERATED OP REFERENCE -->"
#define END_MARK "<!-- END GENERATED OP REFERENCE -->"

typedef struct op_row {
    unsigned num;
    const char *name, *mnemonic, *format, *semantics, *rule_name;
    uint32_t types;
    unsigned rule, flags;
} op_row;

static const op_row ops[] = {
#define CVM_OP(num, name, mn, fmt, tc, rule, flags, sem) \
    {num, #name, mn, fmt, sem, #rule, tc, rule, flags},
#include "bytecode/ops.def"
#undef CVM_OP
};

typedef struct sreg_row {
    unsigned id;
    const char *text;
    unsigned uni;
    const char *doc;
} sreg_row;

static const sreg_row sregs[] = {
#define CVM_SREG(id, name, text, uni, doc) {id, text, uni, doc},
#include "bytecode/sregs.def"
#undef CVM_SREG
};

/* Op groups by first opcode number (the numbering plan at the top of ops.def). */
static const struct {
    unsigned first;
    const char *title;
} groups[] = {
    {0x00, "Structured control flow"},
    {0x20, "Data movement"},
    {0x40, "Arithmetic (integer and float)"},
    {0x60, "Float math"},
    {0x90, "Comparison"},
    {0xa0, "Bitwise and bit counting"},
    {0xb0, "Conversion"},
    {0xb8, "Pointers"},
    {0xc0, "Memory"},
    {0xd0, "Atomics"},
    {0xe0, "Fences and barriers"},
    {0xf0, "Plane ops"},
    {0x110, "Debugging"},
};

/* Operand-type rules in words (bc.h has the terse form next to the enum). */
static const char *const rule_text[] = {
    [CVM_RULE_NONE] = "no register operands",
    [CVM_RULE_COND] = "the first operand is a scalar `bool`",
    [CVM_RULE_SELECTOR] = "the operand is a scalar integer",
    [CVM_RULE_SAME] = "every register has the instruction type T",
    [CVM_RULE_CONST] = "d has type T; the immediate's low bits are the value",
    [CVM_RULE_PARAM] = "d has type T; parameter index and byte offset in range",
    [CVM_RULE_SYM] = "d is `ptr.global` or `ptr.const`, matching the symbol's space",
    [CVM_RULE_SREG] = "d is a scalar integer (zero-extended when wider than u32); x a valid id",
    [CVM_RULE_SELECT] = "d, a, b of type T; c is `bool` (scalar, or a line of T's size)",
    [CVM_RULE_EXTRACT] = "d is a scalar of T's element; a a line of it; i < line size",
    [CVM_RULE_INSERT] = "d and a of type T (a line); b a scalar of T's element; i < line size",
    [CVM_RULE_BUILD] = "d of type T; exactly one scalar operand per element",
    [CVM_RULE_SPLAT] = "d of type T; a a scalar of T's element",
    [CVM_RULE_CMP] = "a, b of type T; d `bool` with T's line size",
    [CVM_RULE_TEST] = "a of float type T; d `bool` with T's line size",
    [CVM_RULE_SHIFT] = "d, a of type T; b an unsigned integer (any width) of T's line size",
    [CVM_RULE_COUNT] = "a of type T; d `u32` with T's line size",
    [CVM_RULE_CVT] = "d of type T; a numeric or `bool` with the same line size",
    [CVM_RULE_BITCAST] = "d of type T; a numeric with the same total bytes",
    [CVM_RULE_PTRADD] = "d, a of scalar pointer type T; b a scalar `i32` or `i64`",
    [CVM_RULE_PTRDIFF] = "d a scalar `i64`; a, b pointers of one space",
    [CVM_RULE_LD] = "d of type T; a a scalar pointer (any space)",
    [CVM_RULE_ST] = "a a scalar pointer (any space); b of type T",
    [CVM_RULE_ATOM] = "d, b scalars of T; a a `ptr.global` or `ptr.shared`",
    [CVM_RULE_CAS] = "d, b, c scalars of T; a a `ptr.global` or `ptr.shared`",
    [CVM_RULE_SYNCPRED] = "a a scalar `bool`; d `u32` (count) or `bool` (and/or)",
    [CVM_RULE_BAR] = "a, b scalar `u32`, cube-uniform",
    [CVM_RULE_PLANEMASK] = "the member mask is a scalar `u32` or `u64`",
    [CVM_RULE_ACTIVEMASK] = "d a scalar of T (`u32` or `u64`)",
    [CVM_RULE_SHFL] = "d, a scalars of T; b a scalar `u32`; mask `u32`/`u64`",
    [CVM_RULE_VOTE] = "d `bool`; a `bool`; mask `u32`/`u64`",
    [CVM_RULE_BALLOT] = "d of T (`u32`/`u64`); a `bool`; mask",
    [CVM_RULE_PLANEVAL] = "d, a scalars of T; mask `u32`/`u64`",
    [CVM_RULE_MATCH] = "d of T (`u32`/`u64`); a any scalar integer or float; mask",
    [CVM_RULE_PRINT] = "every argument is a scalar",
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* Element type names by cvm_bc_elem value (bc.h's table lives in common.c, which we do not link). */
static const char *const elem_names[CVM_T_COUNT] = {
    [CVM_T_BOOL] = "bool",        [CVM_T_I8] = "i8",          [CVM_T_I16] = "i16",
    [CVM_T_I32] = "i32",          [CVM_T_I64] = "i64",        [CVM_T_U8] = "u8",
    [CVM_T_U16] = "u16",          [CVM_T_U32] = "u32",        [CVM_T_U64] = "u64",
    [CVM_T_F16] = "f16",          [CVM_T_BF16] = "bf16",      [CVM_T_F32] = "f32",
    [CVM_T_F64] = "f64",          [CVM_T_PTR_GLOBAL] = "ptr.global",
    [CVM_T_PTR_SHARED] = "ptr.shared", [CVM_T_PTR_LOCAL] = "ptr.local",
    [CVM_T_PTR_CONST] = "ptr.const",
};

/* A growable output string; the generator is small, so failure to grow just ends the program. */
typedef struct buf {
    char *p;
    size_t len, cap;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            fprintf(stderr, "gen_isa: out of memory\n");
            exit(2);
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

static void putf(buf *b, const char *fmt, unsigned v)
{
    char tmp[64];
    int n = snprintf(tmp, sizeof tmp, fmt, v);
    put(b, tmp, (size_t)n);
}

/* Table cells: escape what Markdown would read as markup. */
static void put_cell(buf *b, const char *s)
{
    for (; *s; s++) {
        if (*s == '|' || *s == '*' || *s == '\\' || *s == '_' || *s == '<' || *s == '`')
            put(b, "\\", 1);
        put(b, s, 1);
    }
}

/* Allowed element types, with whole classes named once. */
static void put_types(buf *b, uint32_t t)
{
    static const struct {
        uint32_t bits;
        const char *name;
    } cls[] = {
        {CVM_TC_INT, "int"},  {CVM_TC_SINT, "sint"}, {CVM_TC_UINT, "uint"},
        {CVM_TC_FLOAT, "float"}, {CVM_TC_PTR, "ptr"},
    };
    if (!t) {
        puts_(b, "—");
        return;
    }
    int first = 1;
    for (size_t i = 0; i < COUNT(cls) + CVM_T_COUNT; i++) {
        uint32_t bits;
        const char *name;
        if (i < COUNT(cls)) {
            bits = cls[i].bits;
            name = cls[i].name;
        } else {
            unsigned e = (unsigned)(i - COUNT(cls));
            bits = CVM_TBIT(e);
            name = elem_names[e];
        }
        if (!name || (t & bits) != bits)
            continue;
        puts_(b, first ? "" : " ");
        puts_(b, name);
        first = 0;
        t &= ~bits;
    }
}

/* The operand list in .cbs order: registers named d, a, b, c, ... as the semantics do. */
static void put_operands(buf *b, const op_row *op)
{
    const char *f = op->format;
    size_t nreg = 0, nregs = 0;
    for (const char *q = f; *q; q++)
        nregs += *q == 'r';
    if (!*f) {
        puts_(b, "—");
        return;
    }
    puts_(b, "`");
    for (const char *q = f; *q; q++) {
        if (*q == '*') {
            puts_(b, ", ...");
            continue;
        }
        if (q != f)
            puts_(b, ", ");
        switch (*q) {
        case 'd': puts_(b, "%d"); break;
        case 'r':
            if ((op->flags & CVM_OPF_PLANE) && nreg + 1 == nregs && q[1] != '*')
                puts_(b, "%mask");
            else if ((op->flags & CVM_OPF_MEM) && nreg == 0)
                puts_(b, "[%a]");
            else {
                char reg[3] = {'%', (char)('a' + nreg), 0};
                puts_(b, reg);
            }
            nreg++;
            break;
        case 'i': puts_(b, "i"); break;
        case 'k': puts_(b, "k"); break;
        case 's': puts_(b, "\"s\""); break;
        case 'p': puts_(b, "p"); break;
        case 'g': puts_(b, "g"); break;
        case 'x': puts_(b, "x"); break;
        case 'l': puts_(b, "l"); break;
        default: puts_(b, "?"); break;
        }
    }
    puts_(b, "`");
}

static void put_flags(buf *b, unsigned flags)
{
    static const struct {
        unsigned bit;
        const char *name;
    } fl[] = {
        {CVM_OPF_CTRL, "ctrl"},       {CVM_OPF_MEM, "mem"},         {CVM_OPF_SIDE, "side"},
        {CVM_OPF_ORDERED, "ordered"}, {CVM_OPF_BARRIER, "barrier"}, {CVM_OPF_PLANE, "plane"},
        {CVM_OPF_DIVFAULT, "divfault"},
    };
    int first = 1;
    for (size_t i = 0; i < COUNT(fl); i++) {
        if (!(flags & fl[i].bit))
            continue;
        puts_(b, first ? "" : " ");
        puts_(b, fl[i].name);
        first = 0;
    }
    if (first)
        puts_(b, "—");
}

static const char *uni_name(unsigned u)
{
    switch (u) {
    case CVM_UNI_GRID: return "grid";
    case CVM_UNI_CUBE: return "cube";
    case CVM_UNI_PLANE: return "plane";
    default: return "varying";
    }
}

/* Checks the table before describing it, so a broken row fails the docs build loudly. */
static int table_ok(void)
{
    for (size_t i = 0; i < COUNT(ops); i++) {
        const op_row *op = &ops[i];
        if (op->num >= CVM_OP_LIMIT || (i > 0 && op->num <= ops[i - 1].num)) {
            fprintf(stderr, "gen_isa: %s: opcode 0x%x out of order or range\n", op->name, op->num);
            return 0;
        }
        if (op->rule >= COUNT(rule_text) || !rule_text[op->rule]) {
            fprintf(stderr, "gen_isa: %s: rule %s has no description in gen_isa.c\n", op->name,
                    op->rule_name);
            return 0;
        }
        if (strspn(op->format, "drikspgxl*") != strlen(op->format)) {
            fprintf(stderr, "gen_isa: %s: unknown letter in format \"%s\"\n", op->name, op->format);
            return 0;
        }
    }
    return 1;
}

static void gen_ops(buf *b)
{
    size_t g = 0;
    for (size_t i = 0; i < COUNT(ops); i++) {
        const op_row *op = &ops[i];
        int opened = i == 0;
        while (g + 1 < COUNT(groups) && op->num >= groups[g + 1].first) {
            g++;
            opened = 1;
        }
        if (opened) {
            puts_(b, "\n### ");
            puts_(b, groups[g].title);
            puts_(b, "\n\n| op | mnemonic | operands | types | rule | flags | semantics |\n");
            puts_(b, "|---|---|---|---|---|---|---|\n");
        }
        putf(b, "| 0x%02x | `", op->num);
        puts_(b, op->mnemonic);
        puts_(b, "` | ");
        put_operands(b, op);
        puts_(b, " | ");
        put_types(b, op->types);
        puts_(b, " | ");
        puts_(b, op->rule_name + strlen("CVM_RULE_"));
        puts_(b, " | ");
        put_flags(b, op->flags);
        puts_(b, " | ");
        put_cell(b, op->semantics);
        puts_(b, " |\n");
    }
}

static void gen_rules(buf *b)
{
    puts_(b, "\n### Operand type rules\n\n| rule | operands |\n|---|---|\n");
    for (size_t r = 0; r < COUNT(rule_text); r++) {
        /* only rules some op uses, named as the op rows name them */
        const char *name = NULL;
        for (size_t i = 0; i < COUNT(ops) && !name; i++)
            if (ops[i].rule == r)
                name = ops[i].rule_name + strlen("CVM_RULE_");
        if (!name)
            continue;
        puts_(b, "| ");
        puts_(b, name);
        puts_(b, " | ");
        puts_(b, rule_text[r]);
        puts_(b, " |\n");
    }
}

static void gen_sregs(buf *b)
{
    puts_(b, "\n### Special registers (`sreg`)\n\n| id | name | uniform over | meaning |\n");
    puts_(b, "|---|---|---|---|\n");
    for (size_t i = 0; i < COUNT(sregs); i++) {
        putf(b, "| %u | `", sregs[i].id);
        puts_(b, sregs[i].text);
        puts_(b, "` | ");
        puts_(b, uni_name(sregs[i].uni));
        puts_(b, " | ");
        put_cell(b, sregs[i].doc);
        puts_(b, " |\n");
    }
}

/* The region between the markers, markers included. */
static void generate(buf *b)
{
    puts_(b, BEGIN_MARK "\n");
    puts_(b, "<!-- generated from bytecode/ops.def and bytecode/sregs.def by tools/gen_isa.c;"
             " edit those and run `make docs` -->\n");
    putf(b, "\n%u opcodes. ", (unsigned)COUNT(ops));
    puts_(b, "Operands are written as in `.cbs`: `%d` the destination, `%a %b %c` sources in "
             "order, `[%a]` a pointer operand, `%mask` a plane op's member mask, `i`/`k` "
             "32/64-bit immediates, `\"s\"` a string, `p` a parameter, `g` a symbol, `x` a "
             "special register, `l` a block depth, `...` repetition. Types are the allowed "
             "element types of the instruction type (`int` = i8..u64, `sint`, `uint`, "
             "`float` = f16 bf16 f32 f64, `ptr` = every pointer space). Flags: ctrl = "
             "structured control flow, mem = accesses memory, side = has effects beyond d, "
             "ordered = carries `.ORDER.SCOPE`, barrier = cube barrier (scheduling point), "
             "plane = plane op with member mask, divfault = checked mode faults on integer "
             "division by zero.\n");
    gen_ops(b);
    gen_rules(b);
    gen_sregs(b);
    puts_(b, "\n" END_MARK);
}

static int read_file(const char *path, buf *out)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "gen_isa: cannot open %s\n", path);
        return 0;
    }
    char tmp[8192];
    size_t n;
    while ((n = fread(tmp, 1, sizeof tmp, f)) > 0)
        put(out, tmp, n);
    int ok = !ferror(f);
    fclose(f);
    if (!ok)
        fprintf(stderr, "gen_isa: cannot read %s\n", path);
    if (!out->p)
        put(out, "", 0);
    return ok;
}

static int write_file(const char *path, const char *s, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(s, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "gen_isa: cannot write %s\n", path);
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    buf gen = {0}, doc = {0}, out = {0};
    int rc = 2;
    if (!table_ok())
        goto done;
    generate(&gen);
    if (argc == 1) {
        printf("%s\n", gen.p);
        rc = 0;
        goto done;
    }
    if (argc != 3 || (strcmp(argv[1], "--update") && strcmp(argv[1], "--check"))) {
        fprintf(stderr, "usage: gen_isa [--update FILE | --check FILE]\n");
        goto done;
    }
    if (!read_file(argv[2], &doc))
        goto done;
    char *begin = strstr(doc.p, BEGIN_MARK);
    char *end = begin ? strstr(begin, END_MARK) : NULL;
    if (!end) {
        fprintf(stderr, "gen_isa: %s has no '%s' ... '%s' region\n", argv[2], BEGIN_MARK, END_MARK);
        goto done;
    }
    end += strlen(END_MARK);
    put(&out, doc.p, (size_t)(begin - doc.p));
    put(&out, gen.p, gen.len);
    puts_(&out, end);
    if (!strcmp(argv[1], "--check")) {
        rc = out.len == doc.len && !memcmp(out.p, doc.p, doc.len) ? 0 : 1;
        if (rc)
            fprintf(stderr, "gen_isa: the op reference in %s is out of date with "
                            "bytecode/ops.def; run `make docs`\n", argv[2]);
        goto done;
    }
    rc = write_file(argv[2], out.p, out.len) ? 0 : 2;
done:
    free(gen.p);
    free(doc.p);
    free(out.p);
    return rc;
}
