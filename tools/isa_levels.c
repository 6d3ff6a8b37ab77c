/*
 * isa_levels.c - prints the interpreter ISA variants (vm/isa.h) that this
 * build has and this CPU runs, one name per line, lowest first; `make
 * check-isa` runs the interpreter tests and test_native once per line with
 * CUBEVM_ISA set.
 * With --others, all but the level a plain run picks (the one `make check`
 * has already tested). A build tool linked against the library's internals.
 */
#include "../vm/isa.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    unsigned mask = cvm_vm_isa_supported(), best = 0;
    if (argc > 1 && strcmp(argv[1], "--others") == 0 &&
        cvm_vm_isa_choose(NULL, mask, &best, NULL) == CVM_OK)
        mask &= ~(1u << best);
    for (unsigned l = 0; l < CVM_VM_ISA_COUNT; l++)
        if (mask >> l & 1)
            printf("%s\n", cvm_vm_isa_name(l));
    return 0;
}
