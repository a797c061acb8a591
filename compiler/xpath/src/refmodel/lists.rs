//! An interner of short `u32` lists kept in one arena.
//!
//! The engine interns lists on its cold path (symbols: a tag and the
//! conditions an element meets) once per new element kind. Keeping every
//! list in one vector, and the table as (hash, id) pairs, makes a new list
//! cost no allocation (but the vector's growth) and a lookup one hash of
//! the probe plus a comparison with the candidate: no boxed keys, no
//! rehashing of lists when the table grows, and dropping all lists is one
//! `clear`.

use hashbrown::HashTable;
use rustc_hash::FxHasher;
use std::hash::{Hash, Hasher};

/// Interned `u32` lists, numbered from 0 in interning order.
#[derive(Debug, Default)]
pub(super) struct ListInterner {
    words: Vec<u32>,
    /// Per list: where it ends in `words` (it starts where the previous
    /// one ends).
    ends: Vec<u32>,
    /// (hash, id), so that growing the table rehashes no list.
    table: HashTable<(u64, u32)>,
}

/// The hash both interners key their tables by.
pub(super) fn hash_list(list: &[u32]) -> u64 {
    let mut h = FxHasher::default();
    list.hash(&mut h);
    h.finish()
}

impl ListInterner {
    /// List `id`.
    #[inline]
    pub fn get(&self, id: u32) -> &[u32] {
        let i = id as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.words[start as usize..self.ends[i] as usize]
    }

    /// The id of `list`, and whether it was new.
    pub fn intern(&mut self, list: &[u32]) -> (u32, bool) {
        let h = hash_list(list);
        let (words, ends) = (&self.words, &self.ends);
        let get = |id: u32| {
            let i = id as usize;
            let start = if i == 0 { 0 } else { ends[i - 1] };
            &words[start as usize..ends[i] as usize]
        };
        if let Some(&(_, id)) = self
            .table
            .find(h, |&(hash, id)| hash == h && get(id) == list)
        {
            return (id, false);
        }
        let id = self.ends.len() as u32;
        self.words.extend_from_slice(list);
        self.ends.push(self.words.len() as u32);
        self.table.insert_unique(h, (h, id), |&(hash, _)| hash);
        (id, true)
    }

    /// Drop every list (the buffers keep their capacity).
    pub fn clear(&mut self) {
        self.words.clear();
        self.ends.clear();
        self.table.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::ListInterner;

    #[test]
    fn equal_lists_get_one_id_and_read_back() {
        let mut l = ListInterner::default();
        assert_eq!(l.intern(&[3, 1, 4]), (0, true));
        assert_eq!(l.intern(&[]), (1, true));
        assert_eq!(l.intern(&[3, 1]), (2, true));
        assert_eq!(l.intern(&[3, 1, 4]), (0, false));
        assert_eq!(l.intern(&[]), (1, false));
        assert_eq!(l.get(0), &[3, 1, 4]);
        assert!(l.get(1).is_empty());
        assert_eq!(l.get(2), &[3, 1]);
    }

    #[test]
    fn clear_forgets_every_list() {
        let mut l = ListInterner::default();
        l.intern(&[7]);
        l.intern(&[8, 9]);
        l.clear();
        assert_eq!(l.intern(&[8, 9]), (0, true));
        assert_eq!(l.intern(&[7]), (1, true));
    }

    #[test]
    fn many_lists_survive_table_growth() {
        let mut l = ListInterner::default();
        for i in 0..1000u32 {
            assert_eq!(l.intern(&[i, i * 7, 1]), (i, true));
        }
        for i in 0..1000u32 {
            assert_eq!(l.intern(&[i, i * 7, 1]), (i, false));
            assert_eq!(l.get(i), &[i, i * 7, 1]);
        }
    }
}
