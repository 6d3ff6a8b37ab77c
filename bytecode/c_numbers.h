/*
 * c_numbers.h - the C locale for numbers (bytecode/common.c), kept apart
 * from bc.h because locale_t needs POSIX 2008 and bc.h does not.
 */
#ifndef CVM_BC_C_NUMBERS_H
#define CVM_BC_C_NUMBERS_H

#include <locale.h>

/* The C locale for numbers, made once and kept (NULL if it cannot be
 * made): text readers and writers take it with uselocale for a call, so
 * a host's setlocale(LC_NUMERIC, "de_DE") cannot turn 1.5 into 1. */
locale_t cvm_bc_c_numbers(void);

/* This thread reads and writes numbers in the C locale until
 * cvm_bc_c_numbers_leave(the value returned): the locale it had, or
 * (locale_t)0 when the C locale could not be made. */
locale_t cvm_bc_c_numbers_enter(void);
void cvm_bc_c_numbers_leave(locale_t before);

#endif
