/* status.c - cvm_status_str, expanded from status.def. */
#include "cubevm.h"

const char *cvm_status_str(cvm_status s)
{
    switch (s) {
#define CVM_STATUS(name, value, msg)                                                           \
    case CVM_##name:                                                                           \
        return msg;
#include "status.def"
#undef CVM_STATUS
    }
    return "unknown status";
}
