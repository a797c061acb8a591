//! The programmable tag decoder's perfect hash (`gen_decoder.v`): per
//! configuration, the host finds a seed and per-bucket displacements under
//! which every tag name has a slot of its own in a table of codes; the
//! hardware hashes an element name as its bytes arrive, reads the
//! bucket's displacement, then the slot's code, and verifies the name
//! against the one stored name of that code.
//!
//! Hash and displace (Belazzougui et al., "Hash, displace, and compress",
//! 2009), with XOR displacements: a name's 32-bit hash `h` (seeded, one
//! rotate, XOR and add per byte, [`hash`], then two add-rotate-XOR rounds
//! at the name's end, [`finish`], so the last byte reaches every bit)
//! gives its bucket `(h >> 16) mod B` and its base `h mod M`; its slot is
//! `base XOR D[bucket]`. Buckets are placed largest first, each at the least
//! displacement whose slots are all free. `M` is the least power of two
//! that holds the names and `B` half of it (a handful of seeds at most for
//! a thousand names, a dozen or so when the names fill every slot), or
//! twice that `M` should no seed do: small tables load fast.

/// Seeds tried before a set of names is refused (never reached in
/// practice: see the tests).
const SEEDS: u32 = 256;

/// The tables a configuration's `TAGHASH` record carries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TagHash {
    pub seed: u32,
    /// log2 of the slots `M` (at least 1).
    pub slot_bits: u32,
    /// log2 of the buckets `B`.
    pub bucket_bits: u32,
    /// Per bucket, its displacement.
    pub displace: Vec<u16>,
    /// Per slot, a code (entry + 1; 0: empty).
    pub slots: Vec<u16>,
}

/// The tables of no names.
impl Default for TagHash {
    fn default() -> TagHash {
        TagHash {
            seed: 0,
            slot_bits: 1,
            bucket_bits: 0,
            displace: vec![0],
            slots: vec![0, 0],
        }
    }
}

/// The hash of a name's bytes as the hardware computes it, byte by byte:
/// `x = rotl(h, 5) ^ byte; h = x + rotl(x, 13)`, from `h = seed`.
pub fn hash(seed: u32, bytes: &[u8]) -> u32 {
    bytes.iter().fold(seed, |h, &b| {
        let x = h.rotate_left(5) ^ b as u32;
        x.wrapping_add(x.rotate_left(13))
    })
}

/// The largest tables for `names` names, which a design of `names`
/// entries holds: (slot bits, bucket bits).
pub fn sizes(names: usize) -> (u32, u32) {
    tries(names)[1]
}

/// The tables [`TagHash::build`] tries for `names` names, smaller first:
/// (slot bits, bucket bits).
fn tries(names: usize) -> [(u32, u32); 2] {
    let least = names.next_power_of_two().trailing_zeros().max(1);
    let buckets = least - 1;
    [(least, buckets), (least + 1, buckets)]
}

/// The two rounds after a name's last byte (without them a difference in
/// the last byte's high bits never reaches the low bits of the base).
pub fn finish(h: u32) -> u32 {
    let h = h.wrapping_add(h.rotate_left(17));
    let h = h ^ h.rotate_left(7);
    let h = h.wrapping_add(h.rotate_left(11));
    h ^ h.rotate_left(23)
}

impl TagHash {
    /// The tables for `keys` (distinct), or why none was found.
    pub fn build(keys: &[Vec<u8>]) -> Result<TagHash, String> {
        tries(keys.len())
            .into_iter()
            .find_map(|(slot_bits, bucket_bits)| {
                (0..SEEDS).find_map(|k| {
                    let seed = k.wrapping_mul(0x9E37_79B9);
                    place(keys, seed, slot_bits, bucket_bits)
                })
            })
            .ok_or_else(|| {
                format!(
                    "no perfect hash of the {} tag names in {SEEDS} seeds",
                    keys.len()
                )
            })
    }

    fn at(&self, h: u32) -> (usize, usize) {
        let bucket = (h >> 16) as usize & ((1 << self.bucket_bits) - 1);
        let base = h as usize & ((1 << self.slot_bits) - 1);
        (bucket, base)
    }

    /// The code in the slot a name's key hashes to (not yet verified).
    pub fn code(&self, key: &[u8]) -> u32 {
        self.code_of_parts(&[key])
    }

    /// [`TagHash::code`] of a key given in parts (the key is their
    /// concatenation; the hash runs byte by byte, so nothing is copied).
    pub fn code_of_parts(&self, parts: &[&[u8]]) -> u32 {
        let h = parts.iter().fold(self.seed, |h, p| hash(h, p));
        let (bucket, base) = self.at(finish(h));
        let d = self.displace.get(bucket).copied().unwrap_or(0) as usize;
        let slot = (base ^ d) & ((1 << self.slot_bits) - 1);
        self.slots.get(slot).copied().unwrap_or(0) as u32
    }
}

/// Every key in a slot of its own under `seed`, or `None`.
fn place(keys: &[Vec<u8>], seed: u32, slot_bits: u32, bucket_bits: u32) -> Option<TagHash> {
    let mut t = TagHash {
        seed,
        slot_bits,
        bucket_bits,
        displace: vec![0; 1 << bucket_bits],
        slots: vec![0; 1 << slot_bits],
    };
    let mut buckets: Vec<Vec<(usize, usize)>> = vec![Vec::new(); 1 << bucket_bits];
    for (i, k) in keys.iter().enumerate() {
        let (bucket, base) = t.at(finish(hash(seed, k)));
        buckets[bucket].push((i, base));
    }
    let mut order: Vec<usize> = (0..buckets.len()).collect();
    order.sort_by_key(|&b| std::cmp::Reverse(buckets[b].len()));
    for b in order {
        let items = &buckets[b];
        if items.is_empty() {
            break;
        }
        // Two keys of a bucket on one base never part.
        let mut bases: Vec<usize> = items.iter().map(|&(_, s)| s).collect();
        bases.sort_unstable();
        if bases.windows(2).any(|w| w[0] == w[1]) {
            return None;
        }
        let free = |d: usize| items.iter().all(|&(_, s)| t.slots[s ^ d] == 0);
        let d = (0..t.slots.len()).find(|&d| free(d))?;
        for &(i, s) in items {
            t.slots[s ^ d] = i as u16 + 1;
        }
        t.displace[b] = d as u16;
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(keys: &[Vec<u8>]) -> TagHash {
        let t = TagHash::build(keys).expect("a perfect hash");
        for (i, k) in keys.iter().enumerate() {
            assert_eq!(t.code(k), i as u32 + 1, "key {k:?}");
        }
        assert_eq!(t.slots.iter().filter(|&&c| c != 0).count(), keys.len());
        t
    }

    #[test]
    fn the_hash_is_the_hardware_step() {
        // One byte from seed 0: x = 0x61, h = x + (x << 13).
        assert_eq!(hash(0, b"a"), 0x61 + (0x61 << 13));
        assert_eq!(hash(7, b""), 7);
        let two = hash(hash(3, b"a"), b"b");
        assert_eq!(hash(3, b"ab"), two);
    }

    #[test]
    fn tables_fit_the_names_and_the_design_holds_the_larger_try() {
        assert_eq!(sizes(0), (2, 0));
        assert_eq!(sizes(1), (2, 0));
        assert_eq!(sizes(3), (3, 1));
        assert_eq!(sizes(128), (8, 6));
        assert_eq!(sizes(1000), (11, 9));
        assert_eq!(tries(198), [(8, 7), (9, 7)]);
        assert_eq!(tries(1), [(1, 0), (2, 0)]);
        for n in 1..=5000 {
            let (slots, buckets) = sizes(n);
            for (s, b) in tries(n) {
                assert!(1 << s >= n && s <= slots && b <= buckets, "{n} names");
            }
        }
    }

    #[test]
    fn every_name_gets_its_own_slot() {
        assert_eq!(check(&[]), TagHash::default());
        check(&[b"a".to_vec()]);
        let numbered: Vec<Vec<u8>> = (0..200).map(|i| format!("t{i}").into_bytes()).collect();
        check(&numbered);
        let prefixes: Vec<Vec<u8>> = (1..=32).map(|n| vec![b'a'; n]).collect();
        check(&prefixes);
        // Names one bit apart in their last byte (letter case: bit 5).
        check(&[b"itemA".to_vec(), b"itema".to_vec()]);
        check(&[b"r".to_vec(), b"b".to_vec()]);
        let letters: Vec<Vec<u8>> = (b'A'..=b'Z').chain(b'a'..=b'z').map(|c| vec![c]).collect();
        check(&letters);
    }

    #[test]
    fn two_names_one_bit_apart_always_part() {
        for len in 1..=12usize {
            for at in 0..len {
                for bit in 0..7 {
                    let a: Vec<u8> = (0..len).map(|i| b'a' + (i % 26) as u8).collect();
                    let mut b = a.clone();
                    b[at] ^= 1 << bit;
                    check(&[a, b]);
                }
            }
        }
    }

    #[test]
    fn random_sets_of_up_to_four_thousand_names_need_few_seeds() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for n in [2, 5, 64, 100, 128, 1000, 1024, 4000] {
            let mut keys: Vec<Vec<u8>> = Vec::new();
            while keys.len() < n {
                let len = 1 + (next() % 12) as usize;
                let k: Vec<u8> = (0..len)
                    .map(|_| b"abcdefgh_-.0123"[next() as usize % 15])
                    .collect();
                if !keys.contains(&k) {
                    keys.push(k);
                }
            }
            let t = check(&keys);
            // Far from the limit: the smaller table, the seed the k-th.
            assert_eq!(t.slot_bits, tries(n)[0].0, "{n} names");
            let k = (0..SEEDS).position(|k| k.wrapping_mul(0x9E37_79B9) == t.seed);
            assert!(k.is_some_and(|k| k < 64), "{n} names took seed #{k:?}");
        }
    }
}
