/*
 * volk_unit.c - volk, the Vulkan meta-loader (Debian's libvulkan-volk-dev),
 * compiled as its own translation unit: its single source is shipped as
 * /usr/include/volk.c. It turns dlsym's object pointers into function
 * pointers, which ISO C does not define, so the Makefile builds this one
 * file with -Wno-pedantic (POSIX guarantees the conversion). Nothing links
 * against libvulkan: volkInitialize dlopens the loader at run time.
 */
#include <volk.c>
