/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef MODROT_DL_ELF_H
#define MODROT_DL_ELF_H
/* libelf, opened on first use (dynlib.h): a module file's sections and symbols. */
#include <gelf.h>
#include <libelf.h>

#include "dynlib.h"

#define DL_ELF_FUNCTIONS(X)  \
	X(elf_end)           \
	X(elf_errmsg)        \
	X(elf_errno)         \
	X(elf_getdata)       \
	X(elf_getident)      \
	X(elf_getshdrstrndx) \
	X(elf_kind)          \
	X(elf_memory)        \
	X(elf_ndxscn)        \
	X(elf_nextscn)       \
	X(elf_strptr)        \
	X(elf_version)       \
	X(gelf_getclass)     \
	X(gelf_getehdr)      \
	X(gelf_getshdr)      \
	X(gelf_getsym)

DL_ELF_FUNCTIONS(DYNLIB_DECLARE)

#define elf_end (*dl_elf_end)
#define elf_errmsg (*dl_elf_errmsg)
#define elf_errno (*dl_elf_errno)
#define elf_getdata (*dl_elf_getdata)
#define elf_getident (*dl_elf_getident)
#define elf_getshdrstrndx (*dl_elf_getshdrstrndx)
#define elf_kind (*dl_elf_kind)
#define elf_memory (*dl_elf_memory)
#define elf_ndxscn (*dl_elf_ndxscn)
#define elf_nextscn (*dl_elf_nextscn)
#define elf_strptr (*dl_elf_strptr)
#define elf_version (*dl_elf_version)
#define gelf_getclass (*dl_gelf_getclass)
#define gelf_getehdr (*dl_gelf_getehdr)
#define gelf_getshdr (*dl_gelf_getshdr)
#define gelf_getsym (*dl_gelf_getsym)

#endif
