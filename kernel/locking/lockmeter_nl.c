// SPDX-License-Identifier: GPL-2.0
/*
 * lockmeter: the "lockmeter" generic netlink family.
 *
 *   LOCKMETER_CMD_STATUS_GET  do    state, metered time, table use, losses
 *   LOCKMETER_CMD_STATS_GET   dump  one message per row, merged over CPUs or
 *                                   (LOCKMETER_A_CPU) one CPU's table; admin
 *                                   and CAP_SYS_ADMIN, as /proc/lockmeter
 *   LOCKMETER_CMD_HELD_GET    dump  one message per lock held now, held
 *                                   LOCKMETER_A_OVER ns or more; admin and
 *                                   CAP_SYS_ADMIN
 *   LOCKMETER_CMD_CONTROL     do    on, off, reset; admin and CAP_SYS_ADMIN
 *   LOCKMETER_CMD_WATCH_SET   do    hold and wait thresholds; admin and
 *                                   CAP_SYS_ADMIN
 *   LOCKMETER_CMD_ALERT       event a hold or wait over a threshold, or a
 *                                   sleeping lock still held over one, to
 *                                   the "alerts" group (lockmeter_watch.c);
 *                                   listeners need CAP_NET_ADMIN and
 *                                   CAP_SYS_ADMIN
 *
 * Each dump takes its snapshot in .start and frees it in .done (which also
 * runs when the socket closes mid-dump); the cursor lives in cb->ctx.
 * Attributes carry u32/uint values and strings only.
 *
 * Documentation/netlink/specs/lockmeter.yaml is the reference.  The UAPI
 * header, the request policies and the split ops (lockmeter_nl_gen.c) are
 * generated from it; the handlers those ops name are here.  So is the
 * family: YNL writes one only for "genetlink" specs, and that one is
 * netns-aware, which this family is not.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/cpumask.h>
#include <linux/init.h>
#include <linux/slab.h>
#include <linux/utsname.h>
#include <net/genetlink.h>
#include <net/netlink.h>
#include <uapi/linux/lockmeter.h>

#include "lockmeter.h"
#include "lockmeter_nl_gen.h"

/*
 * The UAPI numbers are the internal ones: enum lm_type, which the hooks
 * use (<linux/lockmeter.h>), and enum lm_class.
 */
#define LM_SAME(uapi, internal)	static_assert((int)(uapi) == (int)(internal))
LM_SAME(LOCKMETER_TYPE_SPIN, LM_spin);
LM_SAME(LOCKMETER_TYPE_READ, LM_read);
LM_SAME(LOCKMETER_TYPE_WRITE, LM_write);
LM_SAME(LOCKMETER_TYPE_MUTEX, LM_mutex);
LM_SAME(LOCKMETER_TYPE_RWSEM_READ, LM_rwsem_read);
LM_SAME(LOCKMETER_TYPE_RWSEM_WRITE, LM_rwsem_write);
LM_SAME(LOCKMETER_TYPE_RT_MUTEX, LM_rt_mutex);
LM_SAME(LOCKMETER_TYPE_PERCPU_RWSEM_READ, LM_percpu_rwsem_read);
LM_SAME(LOCKMETER_TYPE_PERCPU_RWSEM_WRITE, LM_percpu_rwsem_write);
LM_SAME(LOCKMETER_TYPE_SEMAPHORE, LM_semaphore);
LM_SAME(LOCKMETER_TYPE_RT_SPIN, LM_rt_spin);
LM_SAME(LOCKMETER_TYPE_RT_READ, LM_rt_read);
LM_SAME(LOCKMETER_TYPE_RT_WRITE, LM_rt_write);
LM_SAME(LOCKMETER_TYPE_RT_WRITE + 1, LM_NR_TYPES);
LM_SAME(LOCKMETER_CLASS_STATIC, LM_STATIC);
LM_SAME(LOCKMETER_CLASS_PERCPU, LM_PERCPU);
LM_SAME(LOCKMETER_CLASS_HEAP, LM_HEAP);
LM_SAME(LOCKMETER_CLASS_SLAB, LM_SLAB);
LM_SAME(LOCKMETER_CLASS_OVERFLOW, LM_OVERFLOW);

static struct genl_family lockmeter_nl_family;

/* Naming what a dump sends, for one reader. */
struct lm_nl_names {
	struct lm_names names;	/* .show_addr: the reader may see addresses */
	char buf[LM_NAME_LEN];
};

struct lm_nl_dump {
	struct lm_snapshot snap;
	struct lm_nl_names nn;
	size_t pos;
	int cpu;
	const struct nlattr *bad_cpu;	/* refused by the first dumpit */
	char lock[LM_NAME_LEN];
};

#define LM_NL_NO_CPU	"no such CPU"

struct lm_nl_dump_ctx {
	struct lm_nl_dump *d;
};

static struct lm_nl_dump_ctx *lm_nl_ctx(struct netlink_callback *cb)
{
	NL_ASSERT_DUMP_CTX_FITS(struct lm_nl_dump_ctx);
	return (struct lm_nl_dump_ctx *)cb->ctx;
}

/* The thresholds set, one nest per type that has one, and the alerts' counts. */
static int lm_nl_watch_put(struct sk_buff *skb, const struct lm_snapshot *s)
{
	const struct lm_watch_state *w = &s->watch;
	struct nlattr *nest;
	unsigned int t;

	for (t = LM_NONE + 1; t < LM_NR_TYPES; t++) {
		if (!w->hold_ns[t] && !w->wait_ns[t])
			continue;
		nest = nla_nest_start(skb, LOCKMETER_A_WATCH);
		if (!nest)
			return -EMSGSIZE;
		if (nla_put_u32(skb, LOCKMETER_WA_TYPE, t) ||
		    nla_put_uint(skb, LOCKMETER_WA_HOLD_NS, w->hold_ns[t]) ||
		    nla_put_uint(skb, LOCKMETER_WA_WAIT_NS, w->wait_ns[t])) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
		nla_nest_end(skb, nest);
	}
	if (nla_put_uint(skb, LOCKMETER_A_ALERTS, s->loss.alerts + w->held) ||
	    nla_put_uint(skb, LOCKMETER_A_ALERTS_SENT, w->sent) ||
	    nla_put_uint(skb, LOCKMETER_A_ALERTS_DROPPED, s->loss.alerts_dropped + w->unsent))
		return -EMSGSIZE;
	return 0;
}

static int lm_nl_status_put(struct sk_buff *skb, const struct lm_snapshot *s)
{
	unsigned int i;

	if (nla_put_u32(skb, LOCKMETER_A_VERSION, LOCKMETER_VERSION) ||
	    nla_put_string(skb, LOCKMETER_A_KERNEL, init_utsname()->release) ||
	    nla_put_u32(skb, LOCKMETER_A_CPUS, num_online_cpus()) ||
	    nla_put_u32(skb, LOCKMETER_A_STATE, s->on) ||
	    nla_put_uint(skb, LOCKMETER_A_METERED_NS, s->metered_ns) ||
	    nla_put_u32(skb, LOCKMETER_A_SLOTS_USED, s->keys_used) ||
	    nla_put_u32(skb, LOCKMETER_A_SLOTS_PER_CPU, s->keys) ||
	    nla_put_uint(skb, LOCKMETER_A_DROPPED, s->loss.dropped) ||
	    nla_put_uint(skb, LOCKMETER_A_UNMATCHED, s->loss.unmatched) ||
	    nla_put_uint(skb, LOCKMETER_A_RECURSION, s->loss.recursion) ||
	    nla_put_uint(skb, LOCKMETER_A_TABLE_FULL, s->table_full) ||
	    nla_put_uint(skb, LOCKMETER_A_EVICTED, s->loss.evicted) ||
	    nla_put_uint(skb, LOCKMETER_A_RESETS, s->resets) ||
	    nla_put_uint(skb, LOCKMETER_A_IRQCTX, s->loss.irqctx) ||
	    nla_put_uint(skb, LOCKMETER_A_NOTASK, s->loss.notask) ||
	    nla_put_uint(skb, LOCKMETER_A_MEM_PERCPU, s->mem_percpu) ||
	    nla_put_uint(skb, LOCKMETER_A_MEM_TABLES, s->mem_tables) ||
	    nla_put_uint(skb, LOCKMETER_A_MEM_TASK, s->mem_task) ||
	    nla_put_uint(skb, LOCKMETER_A_MEM_CPUS, s->mem_cpus) ||
	    nla_put_uint(skb, LOCKMETER_A_MEM_ROWS, s->mem_rows) ||
	    nla_put_uint(skb, LOCKMETER_A_MEM_CAP, s->mem_cap) ||
	    nla_put_uint(skb, LOCKMETER_A_STACKS_FULL, s->loss.stacks_full) ||
	    nla_put_uint(skb, LOCKMETER_A_CAPTURES, s->captures) ||
	    nla_put_uint(skb, LOCKMETER_A_HIST_LOST, s->loss.hist_lost))
		return -EMSGSIZE;
	for (i = 0; i < LM_SLOT_HIST_NR; i++)
		if (nla_put_uint(skb, LOCKMETER_A_HIST_BOUND, lm_hist_bound(i)))
			return -EMSGSIZE;
	return lm_nl_watch_put(skb, s);
}

int lockmeter_nl_status_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct lm_snapshot snap;
	struct sk_buff *msg;
	void *hdr;
	int ret;

	ret = lm_snapshot(&snap, -1, false);
	if (ret)
		return ret;
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = lm_genlmsg_iput(msg, info, &lockmeter_nl_family);
	if (!hdr || lm_nl_status_put(msg, &snap)) {
		nlmsg_free(msg);
		return -EMSGSIZE;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);
}

/*
 * A call chain @ip[@nr] as attributes @name (one per frame, named as
 * sites are) and, for readers who may see kernel addresses, @addr.
 */
static int lm_nl_frames_put(struct sk_buff *skb, struct lm_nl_names *nn, int name, int addr,
			    const unsigned long *ip, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		lm_addr_name(&nn->names, ip[i], true, nn->buf, sizeof(nn->buf));
		if (nla_put_string(skb, name, nn->buf))
			return -EMSGSIZE;
	}
	for (i = 0; nn->names.show_addr && i < nr; i++)
		if (nla_put_uint(skb, addr, ip[i]))
			return -EMSGSIZE;
	return 0;
}

/* Histogram @hist as nest @attr: every bucket's count, in order (if any). */
static int lm_nl_hist_put(struct sk_buff *skb, int attr, const u64 *hist)
{
	struct nlattr *nest;
	unsigned int i;

	if (!LM_SLOT_HIST_NR)
		return 0;
	nest = nla_nest_start(skb, attr);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < LM_HIST_NR; i++) {
		if (nla_put_uint(skb, LOCKMETER_HI_COUNT, hist[i])) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/* Evidence @e as nest @attr; nothing when there is none (NULL). */
static int lm_nl_ev_put(struct sk_buff *skb, int attr, struct lm_nl_names *nn,
			const struct lm_stat_ev *e)
{
	struct nlattr *nest;

	if (!e)
		return 0;
	nest = nla_nest_start(skb, attr);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, LOCKMETER_E_PID, e->pid) ||
	    nla_put_string(skb, LOCKMETER_E_COMM, e->comm) ||
	    nla_put_u32(skb, LOCKMETER_E_CONTEXT, e->ctx) ||
	    nla_put_u32(skb, LOCKMETER_E_CPU, e->cpu) ||
	    nla_put_uint(skb, LOCKMETER_E_TIME, e->t))
		goto err_cancel;
	if (e->owner_pid &&
	    (nla_put_u32(skb, LOCKMETER_E_OWNER_PID, e->owner_pid) ||
	     nla_put_string(skb, LOCKMETER_E_OWNER_COMM, e->owner_comm)))
		goto err_cancel;
	if (lm_nl_frames_put(skb, nn, LOCKMETER_E_FRAME, LOCKMETER_E_FRAME_ADDR,
			     e->ip, e->nr))
		goto err_cancel;
	if (e->blk &&
	    (nla_put_uint(skb, LOCKMETER_E_BLOCKED_NS, e->blk) ||
	     lm_nl_frames_put(skb, nn, LOCKMETER_E_BLOCKED_FRAME,
			      LOCKMETER_E_BLOCKED_FRAME_ADDR, e->blk_ip, e->blk_nr)))
		goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

static int lm_nl_row_put(struct sk_buff *skb, struct lm_nl_dump *d,
			 const struct lm_stat *r)
{
	const struct {
		int attr;
		u64 val;
	} v[] = {
		{ LOCKMETER_R_ACQUIRED, r->nowait + r->spin },
		{ LOCKMETER_R_NOWAIT, r->nowait },
		{ LOCKMETER_R_SPIN, r->spin },
		{ LOCKMETER_R_REJECT, r->reject },
		{ LOCKMETER_R_ABORT, r->abort },
		{ LOCKMETER_R_HOLD_TOTAL, r->hold.total },
		{ LOCKMETER_R_HOLD_MIN, r->hold.min },
		{ LOCKMETER_R_HOLD_MAX, r->hold.max },
		{ LOCKMETER_R_WAIT_TOTAL, r->wait.total },
		{ LOCKMETER_R_WAIT_MIN, r->wait.min },
		{ LOCKMETER_R_WAIT_MAX, r->wait.max },
		{ LOCKMETER_R_ONCPU_TOTAL, r->oncpu_total },
		{ LOCKMETER_R_ONCPU_MAX, r->oncpu_max },
		{ LOCKMETER_R_BLOCKED_TOTAL, r->blocked_total },
		{ LOCKMETER_R_BLOCKED_MAX, r->blocked_max },
		{ LOCKMETER_R_INSTANCES,
		  lm_class_merges(lm_class(r->key.class)) ? lm_inst_estimate(r->inst) : 1 },
		{ LOCKMETER_R_ALERTS, r->alerts },
		{ LOCKMETER_R_ALERTS_DROPPED, r->alerts_dropped },
	};
	/* a row that was never acquired has no histograms: all zeros */
	static const struct lm_stat_hist none;
	const struct lm_stat_hist *h = r->hist ?: &none;
	struct nlattr *nest;
	unsigned int i;

	nest = nla_nest_start(skb, LOCKMETER_A_ROW);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, LOCKMETER_R_TYPE, r->key.type) ||
	    nla_put_u32(skb, LOCKMETER_R_CLASS, lm_class(r->key.class)))
		goto err_cancel;
	for (i = 0; i < ARRAY_SIZE(v); i++)
		if (nla_put_uint(skb, v[i].attr, v[i].val))
			goto err_cancel;
	if (nla_put_string(skb, LOCKMETER_R_LOCK,
			   lm_lock_name(&d->nn.names, &r->key, d->lock, sizeof(d->lock))) ||
	    nla_put_string(skb, LOCKMETER_R_SITE,
			   lm_site_name(&d->nn.names, &r->key, d->nn.buf, sizeof(d->nn.buf))))
		goto err_cancel;
	if (d->cpu >= 0 && nla_put_u32(skb, LOCKMETER_R_CPU, d->cpu))
		goto err_cancel;
	if (lm_nl_ev_put(skb, LOCKMETER_R_HOLD_EVIDENCE, &d->nn, r->hold_ev) ||
	    lm_nl_ev_put(skb, LOCKMETER_R_WAIT_EVIDENCE, &d->nn, r->wait_ev) ||
	    lm_nl_hist_put(skb, LOCKMETER_R_HOLD_HIST, h->hold) ||
	    lm_nl_hist_put(skb, LOCKMETER_R_WAIT_HIST, h->wait))
		goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

int lockmeter_nl_stats_get_start(struct netlink_callback *cb)
{
	struct nlattr *cpu_attr = lm_genl_dump_attrs(cb)[LOCKMETER_A_CPU];
	struct lm_nl_dump *d;
	int ret;

	/* the same privilege as reading /proc/lockmeter */
	if (!capable(CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG(cb->extack, "lockmeter statistics need CAP_SYS_ADMIN");
		return -EPERM;
	}
	d = kvzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->cpu = -1;
	if (cpu_attr) {
		d->cpu = nla_get_u32(cpu_attr);
		if (d->cpu >= nr_cpu_ids || !cpu_possible(d->cpu)) {
			/*
			 * 6.1 calls start() with no extack: its message would
			 * be lost, so the first dumpit(), which has one,
			 * refuses the request there.
			 */
			if (!cb->extack) {
				d->bad_cpu = cpu_attr;
				lm_nl_ctx(cb)->d = d;
				return 0;
			}
			NL_SET_ERR_MSG_ATTR(cb->extack, cpu_attr, LM_NL_NO_CPU);
			ret = -EINVAL;
			goto err_free;
		}
	}
	ret = lm_snapshot(&d->snap, d->cpu, true);
	if (ret)
		goto err_free;
	lm_snapshot_sort(&d->snap);
	/* addresses as /proc/kallsyms shows them to this reader */
	lm_names_init(&d->nn.names, &d->snap, kallsyms_show_value(current_cred()));
	lm_nl_ctx(cb)->d = d;
	return 0;

err_free:
	kvfree(d);
	return ret;
}

/*
 * The loop of both dumps: one message per item from *@pos on, until @nr
 * or a full @skb, each made by @put(@skb, @arg, item); the first also
 * carries LOCKMETER_A_TRUNCATED, @truncated.  With no item but some left
 * out, one message says only that.  What a dumpit returns.
 */
static int lm_nl_dump_items(struct sk_buff *skb, struct netlink_callback *cb,
			    size_t *pos, size_t nr, u64 truncated,
			    int (*put)(struct sk_buff *skb, void *arg, size_t item),
			    void *arg)
{
	size_t end = nr ? nr : !!truncated;

	for (; *pos < end; ++*pos) {
		void *hdr = lm_genlmsg_dump_put(skb, cb);

		if (!hdr)
			break;
		if ((!*pos && nla_put_uint(skb, LOCKMETER_A_TRUNCATED, truncated)) ||
		    (*pos < nr && put(skb, arg, *pos))) {
			genlmsg_cancel(skb, hdr);
			break;
		}
		genlmsg_end(skb, hdr);
	}
	/* an item that fits no empty message is a bug, not a reason to loop */
	if (*pos < end && !skb->len)
		return -EMSGSIZE;
	return skb->len;
}

static int lm_nl_row_item(struct sk_buff *skb, void *arg, size_t item)
{
	struct lm_nl_dump *d = arg;

	return lm_nl_row_put(skb, d, &d->snap.rows[item]);
}

int lockmeter_nl_stats_get_dumpit(struct sk_buff *skb,
				  struct netlink_callback *cb)
{
	struct lm_nl_dump *d = lm_nl_ctx(cb)->d;

	if (d->bad_cpu) {
		NL_SET_ERR_MSG_ATTR(cb->extack, d->bad_cpu, LM_NL_NO_CPU);
		return -EINVAL;
	}
	return lm_nl_dump_items(skb, cb, &d->pos, d->snap.nr, d->snap.truncated,
				lm_nl_row_item, d);
}

int lockmeter_nl_stats_get_done(struct netlink_callback *cb)
{
	struct lm_nl_dump *d = lm_nl_ctx(cb)->d;

	if (d) {
		lm_names_free(&d->nn.names);
		lm_snapshot_free(&d->snap);
		kvfree(d);
	}
	return 0;
}

/* ---- the locks held now ---- */

struct lm_nl_held {
	struct lm_held_snap hs;
	struct lm_nl_names nn;
	size_t pos;
	char lock[LM_NAME_LEN];
};

struct lm_nl_held_ctx {
	struct lm_nl_held *h;
};

static struct lm_nl_held_ctx *lm_nl_held_ctx(struct netlink_callback *cb)
{
	NL_ASSERT_DUMP_CTX_FITS(struct lm_nl_held_ctx);
	return (struct lm_nl_held_ctx *)cb->ctx;
}

/* Waiter @w as nest @attr (of a held lock, or of a held alert). */
static int lm_nl_waiter_put(struct sk_buff *skb, struct lm_nl_names *nn, int attr,
			    const struct lm_held_waiter *w)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, attr);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, LOCKMETER_W_PID, w->pid) ||
	    nla_put_string(skb, LOCKMETER_W_COMM, w->comm) ||
	    nla_put_string(skb, LOCKMETER_W_SITE,
			   lm_addr_name(&nn->names, w->site, true, nn->buf, sizeof(nn->buf))) ||
	    nla_put_u32(skb, LOCKMETER_W_TYPE, w->type) ||
	    nla_put_uint(skb, LOCKMETER_W_WAITED_NS, w->ns)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

static int lm_nl_held_put(struct sk_buff *skb, struct lm_nl_held *h,
			  const struct lm_held_row *r)
{
	struct nlattr *nest;
	size_t i;

	nest = nla_nest_start(skb, LOCKMETER_A_HELD);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, LOCKMETER_H_TYPE, r->key.type) ||
	    nla_put_u32(skb, LOCKMETER_H_CLASS, lm_class(r->key.class)) ||
	    nla_put_string(skb, LOCKMETER_H_LOCK,
			   lm_lock_name(&h->nn.names, &r->key, h->lock, sizeof(h->lock))) ||
	    nla_put_string(skb, LOCKMETER_H_SITE,
			   r->key.site ? lm_site_name(&h->nn.names, &r->key, h->nn.buf,
						      sizeof(h->nn.buf)) : "") ||
	    nla_put_uint(skb, LOCKMETER_H_HELD_NS, r->ns) ||
	    nla_put_u32(skb, LOCKMETER_H_PID, r->pid) ||
	    nla_put_string(skb, LOCKMETER_H_COMM, r->comm) ||
	    (r->cpu >= 0 && nla_put_u32(skb, LOCKMETER_H_CPU, r->cpu)) ||
	    lm_nl_frames_put(skb, &h->nn, LOCKMETER_H_FRAME, LOCKMETER_H_FRAME_ADDR,
			     r->ip, r->nr))
		goto err_cancel;
	for (i = 0; i < r->nr_waiters; i++)
		if (lm_nl_waiter_put(skb, &h->nn, LOCKMETER_H_WAITER,
				     &h->hs.waiters[r->waiter + i]))
			goto err_cancel;
	nla_nest_end(skb, nest);
	return 0;

err_cancel:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

int lockmeter_nl_held_get_start(struct netlink_callback *cb)
{
	struct nlattr *over = lm_genl_dump_attrs(cb)[LOCKMETER_A_OVER];
	static const struct lm_snapshot no_rows;
	struct lm_nl_held *h;
	int ret;

	/* the holders' chains are other tasks' stacks */
	if (!capable(CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG(cb->extack, "the locks held now need CAP_SYS_ADMIN");
		return -EPERM;
	}
	h = kvzalloc(sizeof(*h), GFP_KERNEL);
	if (!h)
		return -ENOMEM;
	ret = lm_held_snapshot(&h->hs, over ? nla_get_uint(over) : 0);
	if (ret) {
		kvfree(h);
		return ret;
	}
	/* no snapshot of rows: static per-CPU locks are named by offset */
	lm_names_init(&h->nn.names, &no_rows, kallsyms_show_value(current_cred()));
	lm_nl_held_ctx(cb)->h = h;
	return 0;
}

static int lm_nl_held_item(struct sk_buff *skb, void *arg, size_t item)
{
	struct lm_nl_held *h = arg;

	return lm_nl_held_put(skb, h, &h->hs.rows[item]);
}

int lockmeter_nl_held_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct lm_nl_held *h = lm_nl_held_ctx(cb)->h;

	return lm_nl_dump_items(skb, cb, &h->pos, h->hs.nr, h->hs.truncated,
				lm_nl_held_item, h);
}

int lockmeter_nl_held_get_done(struct netlink_callback *cb)
{
	struct lm_nl_held *h = lm_nl_held_ctx(cb)->h;

	if (h) {
		lm_names_free(&h->nn.names);
		lm_held_free(&h->hs);
		kvfree(h);
	}
	return 0;
}

int lockmeter_nl_control_doit(struct sk_buff *skb, struct genl_info *info)
{
	static const enum lm_ctl ops[] = {
		[LOCKMETER_CONTROL_ON] = LM_CTL_ON,
		[LOCKMETER_CONTROL_OFF] = LM_CTL_OFF,
		[LOCKMETER_CONTROL_RESET] = LM_CTL_RESET,
		[LOCKMETER_CONTROL_RELEASE] = LM_CTL_RELEASE,
	};

	struct nlattr *attr = info->attrs[LOCKMETER_A_CONTROL];
	u32 op;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, LOCKMETER_A_CONTROL)) {
		NL_SET_ERR_MSG(info->extack, "LOCKMETER_A_CONTROL is missing");
		return -EINVAL;
	}
	/* the same privilege as writing /proc/lockmeter */
	if (!capable(CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG(info->extack, "lockmeter control needs CAP_SYS_ADMIN");
		return -EPERM;
	}
	/* checked here, not by the policy, so a bad value is EINVAL like /proc */
	op = nla_get_u32(attr);
	if (op < LOCKMETER_CONTROL_ON || op > LOCKMETER_CONTROL_RELEASE) {
		NL_SET_ERR_MSG_ATTR(info->extack, attr, "not a lockmeter control operation");
		return -EINVAL;
	}
	ret = lockmeter_control(ops[op]);
	if (ret == -EBUSY)
		NL_SET_ERR_MSG(info->extack, "metering is on: switch it off first");
	else if (ret == -ENOMEM)
		NL_SET_ERR_MSG(info->extack,
			       "no memory for metering, or more than its cap (mem_cap, lockmeter.mem_pct=)");
	return ret;
}

int lockmeter_nl_watch_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *type = info->attrs[LOCKMETER_A_WATCH_TYPE];
	struct nlattr *hold = info->attrs[LOCKMETER_A_WATCH_HOLD_NS];
	struct nlattr *wait = info->attrs[LOCKMETER_A_WATCH_WAIT_NS];
	int ret;

	/* the same privilege as writing /proc/lockmeter */
	if (!capable(CAP_SYS_ADMIN)) {
		NL_SET_ERR_MSG(info->extack, "lockmeter thresholds need CAP_SYS_ADMIN");
		return -EPERM;
	}
	if (!hold && !wait) {
		NL_SET_ERR_MSG(info->extack,
			       "LOCKMETER_A_WATCH_HOLD_NS or LOCKMETER_A_WATCH_WAIT_NS is missing");
		return -EINVAL;
	}
	ret = lockmeter_watch_set(type ? nla_get_u32(type) : LM_NONE,
				  hold ? nla_get_uint(hold) : LM_WATCH_KEEP,
				  wait ? nla_get_uint(wait) : LM_WATCH_KEEP);
	if (ret == -ERANGE) {
		NL_SET_ERR_MSG(info->extack,
			       "a threshold is 0 (none) or from 1000 ns to 1000 s");
		return -EINVAL;
	}
	return ret;
}

/*
 * The alerts group: the alerts carry other tasks' call chains, so only
 * those who may read the statistics may listen.  (YNL's generator of
 * 6.12 leaves the spec's flags of a group out of lockmeter_nl_gen.c, and
 * the family is written here anyway: see the top of this file.)
 */
static const struct genl_multicast_group lm_nl_mcgrps[] = {
	[LOCKMETER_NLGRP_ALERTS] = {
		.name	= LOCKMETER_MCGRP_ALERTS,
		.flags	= GENL_MCAST_CAP_NET_ADMIN | GENL_MCAST_CAP_SYS_ADMIN,
	},
};

/*
 * A socket joins a group: alerts are sent again, if they had no listener.
 * (6.1 has no bind callback: see LM_GENL_BIND in lockmeter_compat.h.)
 */
static int __maybe_unused lm_nl_bind(int grp)
{
	if (grp == LOCKMETER_NLGRP_ALERTS)
		lm_watch_heard();
	return 0;
}

static struct genl_family lockmeter_nl_family __ro_after_init = {
	.name		= LOCKMETER_FAMILY_NAME,
	.version	= LOCKMETER_FAMILY_VERSION,
	.netnsok	= false,	/* metering is global: the initial netns only */
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	LM_GENL_OPS,
	.resv_start_op	= LOCKMETER_CMD_CONTROL + 1,
	.mcgrps		= lm_nl_mcgrps,
	LM_GENL_BIND
	.n_mcgrps	= ARRAY_SIZE(lm_nl_mcgrps),
};

/* Whether anyone listens to the alerts group. */
bool lm_nl_alert_listened(void)
{
	return genl_has_listeners(&lockmeter_nl_family, &init_net, LOCKMETER_NLGRP_ALERTS);
}

/* The sender's names: lockmeter_watch.c sends from one work item only. */
static struct lm_nl_alert_names {
	struct lm_nl_names nn;
	char lock[LM_NAME_LEN];
} lm_nl_alert_nn;

static int lm_nl_alert_fill(struct sk_buff *skb, const struct lm_alert_msg *a,
			    struct lm_nl_alert_names *an)
{
	struct lm_nl_names *nn = &an->nn;
	void *hdr;
	size_t i;

	hdr = genlmsg_put(skb, 0, 0, &lockmeter_nl_family, 0, LOCKMETER_CMD_ALERT);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, LOCKMETER_AL_KIND, a->kind) ||
	    nla_put_u32(skb, LOCKMETER_AL_TYPE, a->key->type) ||
	    nla_put_u32(skb, LOCKMETER_AL_CLASS, lm_class(a->key->class)) ||
	    nla_put_string(skb, LOCKMETER_AL_LOCK,
			   lm_lock_name(&nn->names, a->key, an->lock, sizeof(an->lock))) ||
	    nla_put_string(skb, LOCKMETER_AL_SITE,
			   a->key->site ? lm_site_name(&nn->names, a->key, nn->buf,
						       sizeof(nn->buf)) : "") ||
	    nla_put_uint(skb, LOCKMETER_AL_NS, a->ns) ||
	    nla_put_uint(skb, LOCKMETER_AL_THRESHOLD_NS, a->thr_ns) ||
	    lm_nl_ev_put(skb, LOCKMETER_AL_EVIDENCE, nn, &a->ev))
		goto err_cancel;
	for (i = 0; i < a->nr_waiters; i++)
		if (lm_nl_waiter_put(skb, nn, LOCKMETER_AL_WAITER, &a->waiters[i]))
			goto err_cancel;
	if (nla_put_uint(skb, LOCKMETER_AL_SEQ, a->seq) ||
	    nla_put_uint(skb, LOCKMETER_AL_DROPPED, a->dropped))
		goto err_cancel;
	genlmsg_end(skb, hdr);
	return 0;

err_cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * Send alert @a to the alerts group, its key named with @names (set up
 * with the keys of the alerts sent together): 0, or an error (no memory,
 * no listener left).  Process context, from lockmeter_watch.c's work only.
 */
int lm_nl_alert_send(const struct lm_alert_msg *a, const struct lm_names *names)
{
	struct lm_nl_alert_names *an = &lm_nl_alert_nn;
	struct sk_buff *skb;
	int ret;

	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return -ENOMEM;
	an->nn.names = *names;
	ret = lm_nl_alert_fill(skb, a, an);
	if (ret) {
		nlmsg_free(skb);
		return ret;
	}
	return genlmsg_multicast(&lockmeter_nl_family, skb, 0, LOCKMETER_NLGRP_ALERTS,
				 GFP_KERNEL);
}

static int __init lockmeter_nl_init(void)
{
	return genl_register_family(&lockmeter_nl_family);
}
device_initcall(lockmeter_nl_init);
