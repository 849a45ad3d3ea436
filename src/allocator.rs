//! The process's allocator: mimalloc, called the way C calls it.
//!
//! The compiler makes and frees millions of small objects (IR, MIR, debug
//! states), and mimalloc serves them faster than glibc's malloc (bench-run:
//! see bench/README.md). The `mimalloc` crate's allocator passes every
//! request through `mi_malloc_aligned`, whose alignment checks and fallback
//! paths cost about 2% of a compile; nearly every Rust allocation asks for
//! no more alignment than `mi_malloc` always gives, so those go straight to
//! `mi_malloc` / `mi_realloc`, as Rust's own `System` allocator does with
//! glibc, and only the rest to the aligned entry points.

use std::alloc::{GlobalAlloc, Layout};
use std::ffi::c_void;

use libmimalloc_sys::{
    mi_free, mi_malloc, mi_malloc_aligned, mi_realloc, mi_realloc_aligned, mi_zalloc,
    mi_zalloc_aligned,
};

/// The alignment every `mi_malloc` block of at least this size has
/// (mimalloc's `MI_MAX_ALIGN_SIZE` on x86-64); a smaller block is aligned to
/// its size rounded up to a power of two, which a Rust layout's size (a
/// multiple of its alignment) always satisfies.
const MALLOC_ALIGNMENT: usize = 16;

/// mimalloc as the global allocator.
pub struct MiMalloc;

/// Whether `mi_malloc` alone gives a block of `size` bytes the alignment
/// `align`.
fn plain(align: usize, size: usize) -> bool {
    align <= MALLOC_ALIGNMENT && align <= size
}

// SAFETY: every block comes from mimalloc with at least the layout's size
// and alignment (see `plain`), and goes back to it through `mi_free`, which
// takes blocks from every mimalloc entry point.
unsafe impl GlobalAlloc for MiMalloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if plain(layout.align(), layout.size()) {
            mi_malloc(layout.size()).cast()
        } else {
            mi_malloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if plain(layout.align(), layout.size()) {
            mi_zalloc(layout.size()).cast()
        } else {
            mi_zalloc_aligned(layout.size(), layout.align()).cast()
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: Layout) {
        mi_free(ptr.cast::<c_void>());
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if plain(layout.align(), new_size) {
            mi_realloc(ptr.cast::<c_void>(), new_size).cast()
        } else {
            mi_realloc_aligned(ptr.cast::<c_void>(), new_size, layout.align()).cast()
        }
    }
}
