//! The hash maps of the parser, the IR's interning tables and the passes.
//!
//! In: keys that are small integers, ids and names from the input. Out: the
//! standard `HashMap`/`HashSet` with a multiply-rotate hasher (the FxHash of
//! rustc and Firefox) in place of SipHash. Rule: only for keys an attacker
//! does not choose to collide (a compiler's own input), and never iterated
//! into the output in hash order (the hasher is fixed, so even that would be
//! repeatable, but sorted order is what the output promises). SipHash was a
//! tenth of `compile` on bench_module.ll; this hasher is a few instructions
//! per word.

use std::hash::{BuildHasherDefault, Hasher};

/// `std::collections::HashMap` with [`FxHasher`].
pub type FxHashMap<K, V> = std::collections::HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// `std::collections::HashSet` with [`FxHasher`].
pub type FxHashSet<T> = std::collections::HashSet<T, BuildHasherDefault<FxHasher>>;

/// The multiplier: 2^64 divided by the golden ratio, made odd.
const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

/// Hashes one word at a time: rotate, xor the word in, multiply.
#[derive(Clone, Copy, Default, Debug)]
pub struct FxHasher {
    hash: u64,
}

impl FxHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            self.add(u64::from_le_bytes(chunk.try_into().unwrap()));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut word = [0u8; 8];
            word[..rest.len()].copy_from_slice(rest);
            // The length keeps "a" and "a\0" apart.
            self.add(u64::from_le_bytes(word) ^ ((rest.len() as u64) << 59));
        }
    }

    #[inline]
    fn write_u8(&mut self, n: u8) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u16(&mut self, n: u16) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u32(&mut self, n: u32) {
        self.add(u64::from(n));
    }

    #[inline]
    fn write_u64(&mut self, n: u64) {
        self.add(n);
    }

    #[inline]
    fn write_usize(&mut self, n: usize) {
        self.add(n as u64);
    }

    #[inline]
    fn finish(&self) -> u64 {
        self.hash
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::{BuildHasher, BuildHasherDefault};

    fn hash_of<T: std::hash::Hash>(value: T) -> u64 {
        BuildHasherDefault::<FxHasher>::default().hash_one(value)
    }

    #[test]
    fn equal_keys_hash_equal_and_near_keys_apart() {
        assert_eq!(hash_of("entry"), hash_of("entry"));
        assert_ne!(hash_of("a"), hash_of("a\0"));
        assert_ne!(hash_of(1u32), hash_of(2u32));
        assert_ne!(hash_of(("x", 1u32)), hash_of(("x", 2u32)));
        let names: FxHashSet<String> = (0..1000).map(|i| format!("%{i}")).collect();
        assert_eq!(names.len(), 1000);
        assert!(names.contains("%999"));
    }
}
