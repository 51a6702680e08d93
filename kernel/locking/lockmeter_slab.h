/* SPDX-License-Identifier: GPL-2.0 */
/*
 * lockmeter: which slab object a lock lives in, for its row's key.
 *
 * Only lockmeter_spin.c includes this, for lm_classify(): it needs the
 * slab allocator's internals (struct slab, struct kmem_cache), which are
 * private to mm/, the way lib/slub_kunit.c needs them.
 *
 * A lock is classified when a CPU's cache of rows misses, with interrupts
 * off: at the release of a lock (just after the unlock itself), after a
 * contended acquisition (the lock held), at a failed trylock or an
 * aborted wait, and for readers of the locks held now.  The object may be
 * freed by another CPU as soon as the lock is released, and its slab with
 * it; its page may then be anything.  So nothing here dereferences what
 * it has not checked: the lock must be in the linear map, at a page frame
 * with a struct page (pfn_valid()); its page must be a slab's; the cache
 * that slab names must itself be an object of the cache of caches
 * (kmem_cache), which keeps the loads from it on a slab page.  The cache
 * may still be destroyed and its page freed between the check and the
 * loads, and a reader of the locks held now classifies with preemption
 * on, where that window has no bound: with DEBUG_PAGEALLOC (free pages
 * unmapped) or KASAN's hardware tags such a load would fault, so the
 * cache's fields are read with get_kernel_nofault().  A race with a free
 * can then at worst key one acquisition by a wrong cache or offset, or
 * leave it a heap lock.  The lock itself is never read.  About a dozen
 * loads and one 32-bit division, per cache miss; nothing on a hit.
 *
 * The offset is that of the lock in its object: (lock - slab start) modulo
 * the cache's object stride (kmem_cache::size), less the left red zone
 * when the cache has one (slub_debug=Z).  KFENCE objects do not follow
 * the stride: their locks stay heap locks.
 */
#ifndef _KERNEL_LOCKING_LOCKMETER_SLAB_H
#define _KERNEL_LOCKING_LOCKMETER_SLAB_H

#include <linux/kasan.h>
#include <linux/kfence.h>
#include <linux/mm.h>
#include <linux/uaccess.h>

#include "../../mm/slab.h"
#include "lockmeter.h"

/* The slab holding linear-map address @a, or NULL. */
static __always_inline struct slab *lm_slab_of(unsigned long a)
{
	struct folio *folio;

	/* KASAN's tag-based modes tag pointers in their top byte */
	a = (unsigned long)kasan_reset_tag((void *)a);
	if (a < PAGE_OFFSET || a >= (unsigned long)high_memory)
		return NULL;
	/*
	 * A lock's address is backed by RAM, but a cache pointer read from a
	 * page freed meanwhile may be anything: it may fall in a hole of the
	 * linear map, where there is no struct page to read.
	 */
	if (!pfn_valid(PHYS_PFN(__pa(a))))
		return NULL;
	folio = virt_to_folio((void *)a);
	return folio_test_slab(folio) ? folio_slab(folio) : NULL;
}

/*
 * Key @lock by its slab cache and offset if it lives in a slab object:
 * @k's lock becomes the struct kmem_cache, @k's off the offset.  False
 * if it does not (page allocator, vmalloc, stacks, KFENCE).
 */
static __always_inline bool lm_classify_slab(unsigned long lock, struct lm_key *k)
{
	const struct kmem_cache *s, *sv;
	struct slab *slab, *cs;
	unsigned int size, off, red;
	slab_flags_t flags;

	slab = lm_slab_of(lock);
	if (!slab || is_kfence_address((void *)lock))
		return false;
	s = READ_ONCE(slab->slab_cache);
	/* a cache is an object of kmem_cache (itself one, once bootstrapped) */
	cs = lm_slab_of((unsigned long)s);
	if (!cs || !kmem_cache || READ_ONCE(cs->slab_cache) != kmem_cache)
		return false;
	/* the cache may be gone by now, its page unmapped: loads that may fail */
	sv = kasan_reset_tag(s);
	if (get_kernel_nofault(size, &sv->size) || !size ||
	    get_kernel_nofault(flags, &sv->flags))
		return false;
	off = (unsigned int)(lock - (unsigned long)slab_address(slab)) % size;
	if (flags & SLAB_RED_ZONE) {
		if (get_kernel_nofault(red, &sv->red_left_pad) || off < red)
			return false;
		off -= red;
	}
	k->class = LM_SLAB;
	k->lock = (unsigned long)s;
	k->off = off;
	return true;
}

#endif /* _KERNEL_LOCKING_LOCKMETER_SLAB_H */
