// SPDX-License-Identifier: GPL-2.0
/*
 * keyflip: flip a static key while the other CPUs run through its sites.
 *
 * A reproducer for "Oops: int3" under QEMU's multi-threaded TCG that needs
 * no lockmeter: the module has its own key with KF_SITES sites, spread
 * over KF_FUNCS functions, and a kthread on every other online CPU runs
 * through them without pause.  Loading it enables and disables the key
 * @flips times (each transition is one text_poke_bp_batch(): int3 on
 * every site, sync, the rest of the instruction, sync, the first byte,
 * sync), then stops the kthreads and prints what happened.  On hardware,
 * and under single-threaded TCG, a CPU can never execute a site's int3
 * after the batch that wrote it has finished; if one does, the int3
 * handler finds no patch in progress and the kernel oopses.
 *
 * Load it with "insmod keyflip.ko flips=N"; it returns -ECANCELED on purpose
 * once done, so it never stays loaded.
 */
#include <linux/atomic.h>
#include <linux/cpumask.h>
#include <linux/jump_label.h>
#include <linux/kthread.h>
#include <linux/module.h>
#include <linux/sched.h>
#include <linux/slab.h>

static unsigned int flips = 2000;
module_param(flips, uint, 0444);
MODULE_PARM_DESC(flips, "enable/disable cycles of the key (default 2000)");

static DEFINE_STATIC_KEY_FALSE(kf_key);
static atomic_long_t kf_taken;
static atomic_long_t kf_rounds;

/* Eight sites, then sixteen functions of them: 128 sites on a few pages. */
#define KF_SITE(n)						\
	do {							\
		if (static_branch_unlikely(&kf_key))		\
			atomic_long_add(n, &kf_taken);		\
	} while (0)

#define KF_FUNC(f)						\
static noinline void kf_func_##f(void)				\
{								\
	KF_SITE(1); KF_SITE(2); KF_SITE(3); KF_SITE(4);	\
	KF_SITE(5); KF_SITE(6); KF_SITE(7); KF_SITE(8);	\
}

KF_FUNC(0) KF_FUNC(1) KF_FUNC(2) KF_FUNC(3)
KF_FUNC(4) KF_FUNC(5) KF_FUNC(6) KF_FUNC(7)
KF_FUNC(8) KF_FUNC(9) KF_FUNC(10) KF_FUNC(11)
KF_FUNC(12) KF_FUNC(13) KF_FUNC(14) KF_FUNC(15)

#define KF_SITES 128

static void kf_run_sites(void)
{
	kf_func_0(); kf_func_1(); kf_func_2(); kf_func_3();
	kf_func_4(); kf_func_5(); kf_func_6(); kf_func_7();
	kf_func_8(); kf_func_9(); kf_func_10(); kf_func_11();
	kf_func_12(); kf_func_13(); kf_func_14(); kf_func_15();
}

static int kf_runner(void *unused)
{
	while (!kthread_should_stop()) {
		kf_run_sites();
		atomic_long_inc(&kf_rounds);
		cond_resched();
	}
	return 0;
}

static int __init keyflip_init(void)
{
	struct task_struct **runners;
	unsigned int cpu, self, n = 0, i;

	runners = kcalloc(nr_cpu_ids, sizeof(*runners), GFP_KERNEL);
	if (!runners)
		return -ENOMEM;

	/* the flips run on the CPU this task is on now; the others run sites */
	self = raw_smp_processor_id();
	set_cpus_allowed_ptr(current, cpumask_of(self));
	for_each_online_cpu(cpu) {
		struct task_struct *t;

		if (cpu == self)
			continue;
		t = kthread_create(kf_runner, NULL, "keyflip/%u", cpu);
		if (IS_ERR(t))
			continue;
		kthread_bind(t, cpu);
		wake_up_process(t);
		runners[n++] = t;
	}

	/* each runner has gone round once before the first flip */
	while (atomic_long_read(&kf_rounds) < n)
		schedule_timeout_uninterruptible(1);

	for (i = 0; i < flips; i++) {
		static_branch_enable(&kf_key);
		static_branch_disable(&kf_key);
		cond_resched();
	}

	for (i = 0; i < n; i++)
		kthread_stop(runners[i]);
	kfree(runners);
	pr_info("keyflip: %u flips of %d sites done, %u runners, %ld rounds, %ld taken\n",
		flips, KF_SITES, n, atomic_long_read(&kf_rounds),
		atomic_long_read(&kf_taken));
	return -ECANCELED;
}
module_init(keyflip_init);

MODULE_DESCRIPTION("Flip a static key under the feet of the other CPUs");
MODULE_LICENSE("GPL");
