//! Memory for the transposition tables, in 2 MiB pages on Linux.
//!
//! The solver probes its table at random places tens of millions of times a
//! second. In 4 KiB pages the 128 MiB endgame table spans 32,768 pages, far
//! more than the processor's address cache (TLB) holds, so most probes first
//! walk the page tables (twice over in a virtual machine). In 2 MiB pages it
//! spans 64. FFO #50–#52 on one thread: 0.91× the time (`farm-bench -n 5`).
//!
//! Linux backs a mapping with huge pages when it is advised to
//! (`MADV_HUGEPAGE`: transparent huge pages in their default `madvise` mode)
//! and 2 MiB-aligned. Elsewhere, or if the mapping fails, the table is an
//! ordinary heap array: slower, never wrong.
//!
//! This file knows nothing of what the tables hold (it imports nothing of the
//! crate): the table's bucket type vouches for being valid all zero
//! ([`ZeroIsEmpty`]).

use std::ops::Deref;

/// A type whose all-zero bytes are a valid value, the same as
/// [`ZeroIsEmpty::empty`] (an empty table bucket), so that freshly mapped
/// memory needs no writing.
///
/// # Safety
/// Every byte of the type may be zero in a valid value, and that value is
/// the one `empty` returns.
pub(crate) unsafe trait ZeroIsEmpty: Sized {
    /// The value whose bytes are all zero, made the ordinary way.
    fn empty() -> Self;
}

/// Tables at least this big are mapped in huge pages.
#[cfg(target_os = "linux")]
const HUGE_PAGE: usize = 2 << 20;

/// An owned array of buckets, all zero (empty slots) at the start.
pub(crate) enum ZeroedBuckets<Bucket> {
    #[cfg(target_os = "linux")]
    Mapped(mapped::Mapping<Bucket>),
    Heap(Vec<Bucket>),
}

impl<Bucket: ZeroIsEmpty> ZeroedBuckets<Bucket> {
    /// `len` empty buckets (at least one); if memory is short, the heap's
    /// own out-of-memory handling decides.
    pub(crate) fn new(len: usize) -> ZeroedBuckets<Bucket> {
        ZeroedBuckets::try_new(len)
            .unwrap_or_else(|| ZeroedBuckets::Heap((0..len.max(1)).map(|_| Bucket::empty()).collect()))
    }

    /// `len` empty buckets, or `None` if the memory cannot be had.
    pub(crate) fn try_new(len: usize) -> Option<ZeroedBuckets<Bucket>> {
        let len = len.max(1);
        #[cfg(target_os = "linux")]
        if len.checked_mul(size_of::<Bucket>())? >= HUGE_PAGE {
            return mapped::Mapping::new(len).map(ZeroedBuckets::Mapped);
        }
        let mut buckets = Vec::new();
        buckets.try_reserve_exact(len).ok()?;
        buckets.resize_with(len, Bucket::empty);
        Some(ZeroedBuckets::Heap(buckets))
    }
}

impl<Bucket> Deref for ZeroedBuckets<Bucket> {
    type Target = [Bucket];

    fn deref(&self) -> &[Bucket] {
        match self {
            #[cfg(target_os = "linux")]
            ZeroedBuckets::Mapped(mapping) => mapping.buckets(),
            ZeroedBuckets::Heap(buckets) => buckets,
        }
    }
}

#[cfg(target_os = "linux")]
mod mapped {
    use std::ptr::NonNull;

    use super::{HUGE_PAGE, ZeroIsEmpty};

    /// An anonymous mapping of buckets, 2 MiB-aligned, advised into huge pages.
    pub(crate) struct Mapping<Bucket> {
        buckets: NonNull<Bucket>,
        len: usize,
    }

    // SAFETY: the mapping is owned, like a `Vec<Bucket>`: it moves between
    // threads as its buckets may.
    unsafe impl<Bucket: Send> Send for Mapping<Bucket> {}
    // SAFETY: shared, it hands out only `&[Bucket]`, as a shared `Vec` would.
    unsafe impl<Bucket: Sync> Sync for Mapping<Bucket> {}

    impl<Bucket: ZeroIsEmpty> Mapping<Bucket> {
        /// `None` if the kernel refuses the mapping.
        pub(crate) fn new(len: usize) -> Option<Mapping<Bucket>> {
            let size = len.checked_mul(size_of::<Bucket>())?;
            // Map a huge page more, then give back what lies outside the aligned range.
            let padded = size.checked_add(HUGE_PAGE)?;
            // SAFETY: a fresh private anonymous mapping; no existing memory is touched.
            let start = unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    padded,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            };
            if start == libc::MAP_FAILED {
                return None;
            }
            let head = start.align_offset(HUGE_PAGE);
            let tail = padded - head - size;
            // SAFETY: both ranges lie inside the mapping just made and outside
            // the part kept, and nothing refers to them (a zero length is skipped).
            unsafe {
                let aligned = start.cast::<u8>().add(head);
                if head > 0 {
                    libc::munmap(start, head);
                }
                if tail > 0 {
                    libc::munmap(aligned.add(size).cast(), tail);
                }
                // Only advice: refused, the pages are 4 KiB ones and work the same.
                libc::madvise(aligned.cast(), size, libc::MADV_HUGEPAGE);
                // An anonymous mapping reads as zeros, and an all-zero bucket
                // is a valid, empty one (`ZeroIsEmpty`).
                Some(Mapping { buckets: NonNull::new(aligned.cast())?, len })
            }
        }
    }

    impl<Bucket> Mapping<Bucket> {
        pub(crate) fn buckets(&self) -> &[Bucket] {
            // SAFETY: `len` zero-initialised buckets, mapped until drop.
            unsafe { std::slice::from_raw_parts(self.buckets.as_ptr(), self.len) }
        }
    }

    impl<Bucket> Drop for Mapping<Bucket> {
        fn drop(&mut self) {
            // SAFETY: the range mapped in `new`; no reference to it outlives `self`.
            unsafe { libc::munmap(self.buckets.as_ptr().cast(), self.len * size_of::<Bucket>()) };
        }
    }
}
