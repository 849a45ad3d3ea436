//! [`DbgOperands`]: the operands of a debug value, the single operand of
//! nearly every one held inline.
//!
//! LiveDebugValues restates every live location at every block start, so a
//! function's debug values can outnumber its other instructions many times
//! over; with an operand vector of their own, every copy of one would be an
//! allocation.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

use super::DbgOperand;

/// The operands `DW_OP_LLVM_arg 0..n` of a debug value. It derefs to the
/// slice of them and compares, hashes and prints as that slice (as a
/// `Vec<DbgOperand>` would).
#[derive(Clone)]
pub struct DbgOperands(Repr);

#[derive(Clone)]
enum Repr {
    One(DbgOperand),
    Many(Vec<DbgOperand>),
}

impl DbgOperands {
    /// A single operand.
    pub fn one(operand: DbgOperand) -> DbgOperands {
        DbgOperands(Repr::One(operand))
    }

    /// The operands as a slice.
    pub fn as_slice(&self) -> &[DbgOperand] {
        self
    }
}

impl From<Vec<DbgOperand>> for DbgOperands {
    fn from(operands: Vec<DbgOperand>) -> DbgOperands {
        match operands.as_slice() {
            [operand] => DbgOperands::one(*operand),
            _ => DbgOperands(Repr::Many(operands)),
        }
    }
}

impl FromIterator<DbgOperand> for DbgOperands {
    fn from_iter<I: IntoIterator<Item = DbgOperand>>(iter: I) -> DbgOperands {
        let mut iter = iter.into_iter();
        let Some(first) = iter.next() else {
            return DbgOperands(Repr::Many(Vec::new()));
        };
        let Some(second) = iter.next() else {
            return DbgOperands::one(first);
        };
        let mut operands = vec![first, second];
        operands.extend(iter);
        DbgOperands(Repr::Many(operands))
    }
}

impl Deref for DbgOperands {
    type Target = [DbgOperand];

    fn deref(&self) -> &[DbgOperand] {
        match &self.0 {
            Repr::One(operand) => std::slice::from_ref(operand),
            Repr::Many(operands) => operands,
        }
    }
}

impl DerefMut for DbgOperands {
    fn deref_mut(&mut self) -> &mut [DbgOperand] {
        match &mut self.0 {
            Repr::One(operand) => std::slice::from_mut(operand),
            Repr::Many(operands) => operands,
        }
    }
}

impl<'a> IntoIterator for &'a DbgOperands {
    type Item = &'a DbgOperand;
    type IntoIter = std::slice::Iter<'a, DbgOperand>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<'a> IntoIterator for &'a mut DbgOperands {
    type Item = &'a mut DbgOperand;
    type IntoIter = std::slice::IterMut<'a, DbgOperand>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter_mut()
    }
}

impl PartialEq for DbgOperands {
    fn eq(&self, other: &DbgOperands) -> bool {
        **self == **other
    }
}

impl Eq for DbgOperands {}

impl Hash for DbgOperands {
    fn hash<H: Hasher>(&self, state: &mut H) {
        (**self).hash(state);
    }
}

impl fmt::Debug for DbgOperands {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codegen::mir::{Reg, VReg};
    use crate::ir::hash::FxHashMap;

    #[test]
    fn one_operand_or_many_behave_as_their_slice() {
        let a = DbgOperand::Reg(Reg::Virt(VReg(1)));
        let b = DbgOperand::Imm(3);
        let one = DbgOperands::one(a);
        assert_eq!(one, DbgOperands::from(vec![a]));
        assert_eq!(one, [a].into_iter().collect::<DbgOperands>());
        assert_eq!(format!("{one:?}"), format!("{:?}", vec![a]));
        let many: DbgOperands = [a, b].into_iter().collect();
        assert_eq!(many.as_slice(), &[a, b]);
        assert_ne!(many, one);
        assert!(std::iter::empty().collect::<DbgOperands>().is_empty());
        // Hashed as the slice: a map keyed by operands finds either form.
        let mut map = FxHashMap::default();
        map.insert(DbgOperands::from(vec![a]), 1);
        assert_eq!(map.get(&one), Some(&1));
        let mut changed = DbgOperands::one(b);
        for operand in &mut changed {
            if let DbgOperand::Imm(n) = operand {
                *n += 1;
            }
        }
        assert_eq!(changed.as_slice(), &[DbgOperand::Imm(4)]);
    }
}
