/*
 * isa_levels.c - prints the interpreter ISA variants (vm/isa.h) that this
 * build has and this CPU runs, one name per line, lowest first; `make
 * check-isa` runs the interpreter tests once per line with CUBEVM_ISA set.
 * A build tool linked against the static library's internals.
 */
#include "../vm/isa.h"

#include <stdio.h>

int main(void)
{
    unsigned mask = cvm_vm_isa_supported();
    for (unsigned l = 0; l < CVM_VM_ISA_COUNT; l++)
        if (mask >> l & 1)
            printf("%s\n", cvm_vm_isa_name(l));
    return 0;
}
