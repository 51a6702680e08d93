/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockmeter: what differs between the kernel lines it is built on.
 *
 * The overlay is written against the newest line (6.12).  Everything an
 * older line (6.1) lacks or spells differently is here, keyed on
 * LINUX_VERSION_CODE, and nowhere else:
 *
 *  - an interface the old line lacks, with the same meaning, is defined
 *    here under its upstream name, for the old line only
 *    (local_clock_noinstr(), task_is_runnable(), nla_put_uint() ...);
 *  - one whose form differs has an lm_ wrapper, which on the newest line
 *    is the upstream call itself (static inline or a macro): the 6.12
 *    objects are what they were without this header.
 *
 * The kernel's own files differ in patches/linux-<line>/ (the same patch
 * names and hook points on every line).  A new line is one more series
 * and the few cases below it needs; Documentation/locking/lockmeter.rst
 * ("Kernel lines") says what a port takes.
 *
 * Assembler files include this too, for the export macros.
 */
#ifndef _KERNEL_LOCKING_LOCKMETER_COMPAT_H
#define _KERNEL_LOCKING_LOCKMETER_COMPAT_H

#include <linux/version.h>

/* LINUX_VERSION_CODE, as its major and patchlevel (checkpatch flags the code) */
#define LM_LINE_6_1	(LINUX_VERSION_MAJOR == 6 && LINUX_VERSION_PATCHLEVEL < 2)

#ifdef __ASSEMBLY__

/* 6.1's <linux/export.h> is C only; its .S files export through asm/ */
#if LM_LINE_6_1
#include <asm/export.h>
#else
#include <linux/export.h>
#endif

#else /* !__ASSEMBLY__ */

#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/percpu-rwsem.h>
#include <linux/sched.h>
#include <linux/sched/clock.h>
#include <linux/semaphore.h>
#include <linux/slab.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#if LM_LINE_6_1

/* 6.1 has no noinstr clock: local_clock() is notrace there already. */
static __always_inline u64 local_clock_noinstr(void)
{
	return local_clock();
}

/* Before the delayed dequeue of 6.12, a task on a runqueue is runnable. */
static inline bool task_is_runnable(struct task_struct *p)
{
	return p->on_rq;
}

#ifdef CONFIG_MODULES
/* Whether @addr lies in module @mod, its init or its core part. */
static inline bool lm_mod_has(const struct module *mod, unsigned long addr)
{
	return within_module(addr, mod);
}

/* The init text of @mod: 6.1 has it first in the init layout. */
static inline void lm_mod_init_text(const struct module *mod, unsigned long *base,
				    unsigned long *size)
{
	*base = (unsigned long)mod->init_layout.base;
	*size = mod->init_layout.text_size;
}
#endif

/*
 * 6.1's kallsyms_on_each_symbol() passes each symbol's module too (NULL
 * for vmlinux): a trampoline drops it.
 */
struct lm_kallsyms_walk {
	int (*fn)(void *data, const char *name, unsigned long addr);
	void *data;
};

static inline int lm_kallsyms_walk_one(void *data, const char *name,
				       struct module *mod, unsigned long addr)
{
	struct lm_kallsyms_walk *w = data;

	return w->fn(w->data, name, addr);
}

static inline int
lm_kallsyms_on_each_symbol(int (*fn)(void *data, const char *name, unsigned long addr),
			   void *data)
{
	struct lm_kallsyms_walk w = { .fn = fn, .data = data };

	return kallsyms_on_each_symbol(lm_kallsyms_walk_one, &w);
}

/*
 * Generic netlink.  6.1 has no split ops: a family's genl_ops carry the
 * same fields (doit or start/dumpit/done, policy, maxattr, flags), and
 * each of lockmeter's commands is a do or a dump, never both, so the
 * ops table generated for 6.12 (lockmeter_nl_gen.c, which the 6.1
 * series' Makefile builds with this header) is a genl_ops table.  The
 * GENL_CMD_CAP_* bits in its flags are what 6.1's family dump reports
 * anyway.
 */
#define genl_split_ops			genl_ops
#define LM_GENL_OPS			.ops = lockmeter_nl_ops,		\
					.n_ops = ARRAY_SIZE(lockmeter_nl_ops)
/*
 * No family bind callback on 6.1: a socket that joins the alerts group
 * is found by the sender, which looks for listeners each time it runs,
 * at least once a second while a threshold is set, even with nobody
 * listening (lockmeter_watch.c), and by a threshold's setting (lockstat
 * watch joins first).
 */
#define LM_GENL_BIND
#define LM_GENL_HAS_BIND		0

/* No ipi_send_cpu tracepoint (6.6): the test module's re-entry probe is 6.12's. */
#define LM_HAS_TRACE_IPI_SEND_CPU	0

/* The request's attributes, in a dump's .start. */
static inline struct nlattr **lm_genl_dump_attrs(struct netlink_callback *cb)
{
	return genl_dumpit_info(cb)->attrs;
}

/* The header of one message of a dump, as 6.12's genlmsg_iput() makes it. */
static inline void *lm_genlmsg_dump_put(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *di = genl_dumpit_info(cb);

	return genlmsg_put(skb, NETLINK_CB(cb->skb).portid, cb->nlh->nlmsg_seq,
			   di->family, 0, di->op.cmd);
}

/* A reply's header to request @info of @family. */
static inline void *lm_genlmsg_iput(struct sk_buff *skb, const struct genl_info *info,
				    const struct genl_family *family)
{
	return genlmsg_put(skb, info->snd_portid, info->snd_seq, family, 0,
			   info->genlhdr->cmd);
}

#define NL_ASSERT_DUMP_CTX_FITS(type_name)					\
	BUILD_BUG_ON(sizeof(type_name) > sizeof_field(struct netlink_callback, ctx))

/*
 * NLA_UINT, 6.2's variable-width unsigned integer: 4 or 8 bytes, read as
 * a u64.  6.1's policy for it is a binary of at most 8 bytes whose
 * length a validator checks: the same requests pass and fail.  The
 * macro completes a policy entry's initializer, { .type = NLA_UINT, }.
 */
static inline int lm_nla_validate_uint(const struct nlattr *attr,
				       struct netlink_ext_ack *extack)
{
	if (nla_len(attr) == sizeof(u32) || nla_len(attr) == sizeof(u64))
		return 0;
	NL_SET_ERR_MSG_ATTR(extack, attr, "invalid attribute length");
	return -EINVAL;
}

#define NLA_UINT	NLA_BINARY, .len = sizeof(u64),				\
			.validation_type = NLA_VALIDATE_FUNCTION,		\
			.validate = lm_nla_validate_uint

static inline u64 nla_get_uint(const struct nlattr *nla)
{
	if (nla_len(nla) == sizeof(u32))
		return nla_get_u32(nla);
	return nla_get_u64(nla);
}

/* 4 bytes when the value fits, else 8 (no pad attribute), as on 6.12. */
static inline int nla_put_uint(struct sk_buff *skb, int attrtype, u64 value)
{
	u64 tmp64 = value;
	u32 tmp32 = value;

	if (tmp64 == tmp32)
		return nla_put_u32(skb, attrtype, tmp32);
	return nla_put(skb, attrtype, sizeof(u64), &tmp64);
}

/*
 * No SLAB_NO_MERGE before 6.5: a cache with any flag of SLAB_NEVER_MERGE
 * stays apart, and SLAB_NOLEAKTRACE is the one that changes neither the
 * layout nor the behaviour of its objects (kmemleak skips them).
 */
#define SLAB_NO_MERGE			SLAB_NOLEAKTRACE

/* 6.1's percpu_rwsem_release() also says whether it was held to read. */
static inline void lm_percpu_rwsem_release(struct percpu_rw_semaphore *sem, bool read,
					   unsigned long ip)
{
	percpu_rwsem_release(sem, read, ip);
}

#else /* the newest line: the upstream calls themselves */

#ifdef CONFIG_MODULES
static inline bool lm_mod_has(const struct module *mod, unsigned long addr)
{
	for_each_mod_mem_type(t) {
		unsigned long base = (unsigned long)mod->mem[t].base;

		if (base && addr >= base && addr < base + mod->mem[t].size)
			return true;
	}
	return false;
}

static inline void lm_mod_init_text(const struct module *mod, unsigned long *base,
				    unsigned long *size)
{
	*base = (unsigned long)mod->mem[MOD_INIT_TEXT].base;
	*size = mod->mem[MOD_INIT_TEXT].size;
}
#endif

#define lm_kallsyms_on_each_symbol(fn, data)	kallsyms_on_each_symbol(fn, data)

#define LM_GENL_OPS			.split_ops = lockmeter_nl_ops,		\
					.n_split_ops = ARRAY_SIZE(lockmeter_nl_ops)
#define LM_GENL_BIND			.bind = lm_nl_bind,
#define LM_GENL_HAS_BIND		1
#define LM_HAS_TRACE_IPI_SEND_CPU	1

static inline struct nlattr **lm_genl_dump_attrs(struct netlink_callback *cb)
{
	return genl_info_dump(cb)->attrs;
}

static inline void *lm_genlmsg_dump_put(struct sk_buff *skb, struct netlink_callback *cb)
{
	return genlmsg_iput(skb, genl_info_dump(cb));
}

static inline void *lm_genlmsg_iput(struct sk_buff *skb, const struct genl_info *info,
				    const struct genl_family *family)
{
	return genlmsg_iput(skb, info);
}

static inline void lm_percpu_rwsem_release(struct percpu_rw_semaphore *sem, bool read,
					   unsigned long ip)
{
	percpu_rwsem_release(sem, ip);
}

#endif /* LM_LINE_6_1 */

#endif /* __ASSEMBLY__ */

#endif /* _KERNEL_LOCKING_LOCKMETER_COMPAT_H */
