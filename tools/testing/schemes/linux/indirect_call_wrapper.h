/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's <linux/indirect_call_wrapper.h> for the user-space build of
 * the schemes, which tools/include lacks: as the kernel's without
 * CONFIG_RETPOLINE, a plain indirect call.
 */
#ifndef TW_USER_INDIRECT_CALL_WRAPPER_H
#define TW_USER_INDIRECT_CALL_WRAPPER_H

#define INDIRECT_CALL_2(f, f2, f1, ...) f(__VA_ARGS__)

#endif
