/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockmeter: the x86_64 entries through which an unlock inlined into its
 * caller calls its hook when metering is on (lm_unlock_call() in
 * <linux/lockmeter.h>).  Each keeps every register but %rdi, which
 * the caller loads with the lock and knows to be lost, as
 * preempt_schedule_thunk does for preempt_enable(): the compiler then
 * sees no call in the inlined unlock, so the caller's registers and
 * stack frame are the same as without lockmeter, and metering switched
 * off costs the static-branch NOP (and at most a jump over the call).
 * The hook gets the lock in %rdi.
 *
 * Cost, metering on: eight pushes and pops, the lea and the extra call,
 * about 20 instructions per inlined unlock; the pushes come before the
 * release is timed, so a hold measured this way includes them.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/frame.h>

#include "lockmeter_compat.h"

	.section .spinlock.text, "ax"

.macro LM_UNLOCK_THUNK func
SYM_FUNC_START(\func\()_thunk)
	FRAME_BEGIN
	pushq	%rsi
	pushq	%rdx
	pushq	%rcx
	pushq	%rax
	pushq	%r8
	pushq	%r9
	pushq	%r10
	pushq	%r11
	call	\func
	popq	%r11
	popq	%r10
	popq	%r9
	popq	%r8
	popq	%rax
	popq	%rcx
	popq	%rdx
	popq	%rsi
	FRAME_END
	RET
SYM_FUNC_END(\func\()_thunk)
_ASM_NOKPROBE(\func\()_thunk)
EXPORT_SYMBOL(\func\()_thunk)
.endm

LM_UNLOCK_THUNK lm_spin_drop
LM_UNLOCK_THUNK lm_spin_drop_irq
#ifndef CONFIG_PREEMPT_RT	/* rwlock_t is an rtmutex there */
LM_UNLOCK_THUNK lm_read_drop
LM_UNLOCK_THUNK lm_read_drop_irq
LM_UNLOCK_THUNK lm_write_drop
LM_UNLOCK_THUNK lm_write_drop_irq
#endif
