/*
 * test_opnumbers.c - the permanence test for encoded numbers.
 *
 * Opcode numbers, special-register ids and element-type numbers are written
 * into every .cbc file, so once published they never change. This test
 * holds a hard-coded copy of every (number, name) pair and compares it with
 * what bytecode/ops.def, bytecode/sregs.def and bytecode/bc.h say now:
 *   - a pair of the copy that changed number or name fails (never renumber
 *     or rename; add a new row instead);
 *   - a row present in the .def file but missing from the copy fails too,
 *     with a note asking to append it here (new rows are allowed, but only
 *     once they are recorded as permanent).
 */
#include "../bytecode/bc.h"
#include "tap.h"

typedef struct pair {
    unsigned num;
    const char *name;
} pair;

/* The published opcodes. Append new rows; never edit existing ones. */
static const pair known_ops[] = {
    {0x00, "nop"}, {0x01, "if"}, {0x02, "else"}, {0x03, "end"}, {0x04, "loop"},
    {0x05, "continuing"}, {0x06, "break_if"}, {0x07, "break"}, {0x08, "continue"}, {0x09, "switch"},
    {0x0a, "case"}, {0x0b, "default"}, {0x0c, "fallthrough"}, {0x0d, "block"}, {0x0e, "exit"},
    {0x0f, "return"}, {0x20, "mov"}, {0x21, "const"}, {0x22, "param"}, {0x23, "sym"},
    {0x24, "sreg"}, {0x25, "select"}, {0x26, "extract"}, {0x27, "insert"}, {0x28, "build"},
    {0x29, "splat"}, {0x40, "add"}, {0x41, "sub"}, {0x42, "mul"}, {0x43, "div"},
    {0x44, "rem"}, {0x45, "min"}, {0x46, "max"}, {0x47, "neg"}, {0x48, "abs"},
    {0x49, "fma"}, {0x4a, "mad"}, {0x4b, "mulhi"}, {0x4c, "clamp"}, {0x60, "sqrt"},
    {0x61, "rsqrt"}, {0x62, "rcp"}, {0x63, "exp"}, {0x64, "exp2"}, {0x65, "expm1"},
    {0x66, "log"}, {0x67, "log2"}, {0x68, "log10"}, {0x69, "log1p"}, {0x6a, "sin"},
    {0x6b, "cos"}, {0x6c, "tan"}, {0x6d, "asin"}, {0x6e, "acos"}, {0x6f, "atan"},
    {0x70, "atan2"}, {0x71, "sinh"}, {0x72, "cosh"}, {0x73, "tanh"}, {0x74, "pow"},
    {0x75, "erf"}, {0x76, "erfc"}, {0x77, "cbrt"}, {0x78, "hypot"}, {0x79, "floor"},
    {0x7a, "ceil"}, {0x7b, "trunc"}, {0x7c, "round"}, {0x7d, "rint"}, {0x7e, "copysign"},
    {0x90, "eq"}, {0x91, "ne"}, {0x92, "lt"}, {0x93, "le"}, {0x94, "gt"},
    {0x95, "ge"}, {0x96, "isnan"}, {0x97, "isinf"}, {0x98, "isfinite"}, {0xa0, "and"},
    {0xa1, "or"}, {0xa2, "xor"}, {0xa3, "not"}, {0xa4, "shl"}, {0xa5, "shr"},
    {0xa6, "popc"}, {0xa7, "clz"}, {0xa8, "ctz"}, {0xa9, "brev"}, {0xb0, "cvt"},
    {0xb1, "bitcast"}, {0xb8, "ptr.add"}, {0xb9, "ptr.diff"}, {0xc0, "ld"}, {0xc1, "st"},
    {0xc2, "ld.volatile"}, {0xc3, "st.volatile"}, {0xc4, "ld.atomic"}, {0xc5, "st.atomic"}, {0xd0, "atom.add"},
    {0xd1, "atom.sub"}, {0xd2, "atom.min"}, {0xd3, "atom.max"}, {0xd4, "atom.and"}, {0xd5, "atom.or"},
    {0xd6, "atom.xor"}, {0xd7, "atom.exch"}, {0xd8, "atom.inc"}, {0xd9, "atom.dec"}, {0xda, "atom.cas"},
    {0xe0, "fence"}, {0xe1, "sync_cube"}, {0xe2, "sync_cube.count"}, {0xe3, "sync_cube.and"}, {0xe4, "sync_cube.or"},
    {0xe5, "bar.sync"}, {0xe6, "bar.arrive"}, {0xf0, "sync_plane"}, {0xf1, "activemask"}, {0xf2, "shfl.idx"},
    {0xf3, "shfl.up"}, {0xf4, "shfl.down"}, {0xf5, "shfl.xor"}, {0xf6, "vote.all"}, {0xf7, "vote.any"},
    {0xf8, "vote.ballot"}, {0xf9, "reduce.add"}, {0xfa, "reduce.min"}, {0xfb, "reduce.max"}, {0xfc, "reduce.and"},
    {0xfd, "reduce.or"}, {0xfe, "reduce.xor"}, {0xff, "scan.add"}, {0x100, "exscan.add"}, {0x101, "match.any"},
    {0x102, "match.all"}, {0x110, "assert"}, {0x111, "trap"}, {0x112, "print"}
};

/* The published special registers (sreg ids). */
static const pair known_sregs[] = {
    {0, "unit_pos.x"}, {1, "unit_pos.y"}, {2, "unit_pos.z"}, {3, "cube_pos.x"},
    {4, "cube_pos.y"}, {5, "cube_pos.z"}, {6, "cube_dim.x"}, {7, "cube_dim.y"},
    {8, "cube_dim.z"}, {9, "cube_count.x"}, {10, "cube_count.y"}, {11, "cube_count.z"},
    {12, "plane_dim"}, {13, "unit_pos_plane"}, {14, "plane_pos"}, {15, "unit_pos"},
    {16, "cube_pos"}, {17, "abs_pos.x"}, {18, "abs_pos.y"}, {19, "abs_pos.z"},
    {20, "lanemask_lt"}, {21, "lanemask_le"}, {22, "lanemask_gt"}, {23, "lanemask_ge"},
    {24, "plane_fullmask"}, {25, "dyn_shared_base"}, {26, "dyn_shared_size"}
};

/* The published element-type numbers (cvm_elem and the pointer types). */
static const pair known_elems[] = {
    {1, "bool"}, {2, "i8"}, {3, "i16"}, {4, "i32"}, {5, "i64"},
    {6, "u8"}, {7, "u16"}, {8, "u32"}, {9, "u64"}, {10, "f16"},
    {11, "bf16"}, {12, "f32"}, {13, "f64"}, {16, "ptr.global"},
    {17, "ptr.shared"}, {18, "ptr.local"}, {19, "ptr.const"},
};

/* What the tables say today: expanded here, independently of common.c. */
static const pair cur_ops[] = {
#define CVM_OP(num, name, mn, fmt, tc, rule, flags, sem) {num, mn},
#include "../bytecode/ops.def"
#undef CVM_OP
};

static const pair cur_sregs[] = {
#define CVM_SREG(id, name, text, uni, doc) {id, text},
#include "../bytecode/sregs.def"
#undef CVM_SREG
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static const pair *find_num(const pair *t, size_t n, unsigned num)
{
    for (size_t i = 0; i < n; i++)
        if (t[i].num == num)
            return &t[i];
    return NULL;
}

/* Every known pair still exists unchanged; every current row is known; no
 * number is used twice. `what` names the table in the messages. */
static void compare(const char *what, const char *file, const pair *known, size_t nknown,
                    const pair *cur, size_t ncur)
{
    int bad = 0;
    for (size_t i = 0; i < nknown; i++) {
        const pair *c = find_num(cur, ncur, known[i].num);
        if (!c) {
            diag("%s 0x%x \"%s\" was removed from %s (numbers are permanent)", what,
                 known[i].num, known[i].name, file);
            bad++;
        } else if (strcmp(c->name, known[i].name) != 0) {
            diag("%s 0x%x was \"%s\", is now \"%s\" in %s (never rename or renumber)", what,
                 known[i].num, known[i].name, c->name, file);
            bad++;
        }
    }
    ok(!bad, "%s: every published number keeps its name", what);

    bad = 0;
    for (size_t i = 0; i < ncur; i++) {
        if (!find_num(known, nknown, cur[i].num)) {
            diag("%s 0x%x \"%s\" in %s is new: append {0x%x, \"%s\"} to tests/test_opnumbers.c",
                 what, cur[i].num, cur[i].name, file, cur[i].num, cur[i].name);
            bad++;
        }
        for (size_t j = 0; j < i; j++)
            if (cur[j].num == cur[i].num) {
                diag("%s number 0x%x is used twice in %s (\"%s\" and \"%s\")", what,
                     cur[i].num, file, cur[j].name, cur[i].name);
                bad++;
            }
    }
    ok(!bad, "%s: every row of %s is recorded here, numbers unique", what, file);
}

int main(void)
{
    compare("opcode", "bytecode/ops.def", known_ops, COUNT(known_ops), cur_ops, COUNT(cur_ops));
    compare("sreg", "bytecode/sregs.def", known_sregs, COUNT(known_sregs), cur_sregs,
            COUNT(cur_sregs));

    /* Opcodes must fit below CVM_OP_LIMIT (the size of every op-indexed table). */
    int bad = 0;
    for (size_t i = 0; i < COUNT(cur_ops); i++)
        if (cur_ops[i].num >= CVM_OP_LIMIT) {
            diag("opcode 0x%x \"%s\" is >= CVM_OP_LIMIT 0x%x", cur_ops[i].num, cur_ops[i].name,
                 (unsigned)CVM_OP_LIMIT);
            bad++;
        }
    ok(!bad, "every opcode is below CVM_OP_LIMIT");

    /* Element numbers: the bc.h enum and the names common.c prints and parses. */
    bad = 0;
    for (size_t i = 0; i < COUNT(known_elems); i++) {
        const char *name = cvm_bc_elem_name(known_elems[i].num);
        unsigned parsed = cvm_bc_elem_parse(known_elems[i].name, strlen(known_elems[i].name));
        if (!name || strcmp(name, known_elems[i].name) != 0 || parsed != known_elems[i].num) {
            diag("element type %u should be \"%s\": name \"%s\", parse gives %u",
                 known_elems[i].num, known_elems[i].name, name ? name : "(null)", parsed);
            bad++;
        }
    }
    ok(!bad, "element-type numbers and names are unchanged");
    ok(CVM_T_BOOL == 1 && CVM_T_F64 == 13 && CVM_T_PTR_GLOBAL == 16 && CVM_T_PTR_CONST == 19 &&
           CVM_BOOL == 1 && CVM_F64 == 13,
       "element-type enums in bc.h and cubevm.h keep their values");
    return done_testing();
}
