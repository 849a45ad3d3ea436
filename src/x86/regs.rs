//! The sixteen x86-64 general-purpose registers, their hardware and DWARF
//! numbers, and a small bit set over them.
//!
//! In: nothing. Out: [`Gpr`] and [`GprSet`]. Promise: `Gpr::hw()` is the
//! encoding number (rax 0, rcx 1, …, r15 15) and `Gpr::dwarf()` the SysV
//! DWARF register number (rax 0, rdx 1, rcx 2, rbx 3, rsi 4, rdi 5, rbp 6,
//! rsp 7, r8–r15 8–15).

use std::fmt;

/// A 64-bit general-purpose register, in hardware encoding order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Gpr {
    /// rax (hw 0).
    Rax,
    /// rcx (hw 1).
    Rcx,
    /// rdx (hw 2).
    Rdx,
    /// rbx (hw 3).
    Rbx,
    /// rsp (hw 4).
    Rsp,
    /// rbp (hw 5).
    Rbp,
    /// rsi (hw 6).
    Rsi,
    /// rdi (hw 7).
    Rdi,
    /// r8.
    R8,
    /// r9.
    R9,
    /// r10.
    R10,
    /// r11.
    R11,
    /// r12.
    R12,
    /// r13.
    R13,
    /// r14.
    R14,
    /// r15.
    R15,
}

impl Gpr {
    /// All sixteen registers in hardware order.
    pub const ALL: [Gpr; 16] = [
        Gpr::Rax,
        Gpr::Rcx,
        Gpr::Rdx,
        Gpr::Rbx,
        Gpr::Rsp,
        Gpr::Rbp,
        Gpr::Rsi,
        Gpr::Rdi,
        Gpr::R8,
        Gpr::R9,
        Gpr::R10,
        Gpr::R11,
        Gpr::R12,
        Gpr::R13,
        Gpr::R14,
        Gpr::R15,
    ];

    /// The hardware encoding number (0–15).
    pub fn hw(self) -> u8 {
        self as u8
    }

    /// The SysV x86-64 DWARF register number.
    pub fn dwarf(self) -> u16 {
        match self {
            Gpr::Rax => 0,
            Gpr::Rdx => 1,
            Gpr::Rcx => 2,
            Gpr::Rbx => 3,
            Gpr::Rsi => 4,
            Gpr::Rdi => 5,
            Gpr::Rbp => 6,
            Gpr::Rsp => 7,
            other => u16::from(other.hw()),
        }
    }

    /// The 64-bit assembler name (`rax`, `r8`, …).
    pub fn name(self) -> &'static str {
        const NAMES: [&str; 16] = [
            "rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi", "r8", "r9", "r10", "r11",
            "r12", "r13", "r14", "r15",
        ];
        NAMES[usize::from(self.hw())]
    }
}

impl fmt::Display for Gpr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of general-purpose registers (one bit per hardware number).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GprSet(pub u16);

impl GprSet {
    /// The empty set.
    pub const EMPTY: GprSet = GprSet(0);

    /// The set holding exactly `regs`.
    pub fn of(regs: &[Gpr]) -> GprSet {
        regs.iter().fold(GprSet::EMPTY, |set, &r| set.with(r))
    }

    /// This set plus `reg`.
    pub fn with(self, reg: Gpr) -> GprSet {
        GprSet(self.0 | 1 << reg.hw())
    }

    /// Adds `reg`.
    pub fn insert(&mut self, reg: Gpr) {
        self.0 |= 1 << reg.hw();
    }

    /// Whether `reg` is in the set.
    pub fn contains(self, reg: Gpr) -> bool {
        self.0 & (1 << reg.hw()) != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The members in hardware order.
    pub fn iter(self) -> impl Iterator<Item = Gpr> {
        Gpr::ALL.into_iter().filter(move |&r| self.contains(r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dwarf_numbers_follow_the_sysv_psabi() {
        let numbers: Vec<(&str, u16)> = Gpr::ALL.iter().map(|r| (r.name(), r.dwarf())).collect();
        assert_eq!(
            numbers,
            [
                ("rax", 0),
                ("rcx", 2),
                ("rdx", 1),
                ("rbx", 3),
                ("rsp", 7),
                ("rbp", 6),
                ("rsi", 4),
                ("rdi", 5),
                ("r8", 8),
                ("r9", 9),
                ("r10", 10),
                ("r11", 11),
                ("r12", 12),
                ("r13", 13),
                ("r14", 14),
                ("r15", 15),
            ]
        );
    }

    #[test]
    fn set_membership() {
        let set = GprSet::of(&[Gpr::Rdi, Gpr::R12]);
        assert!(set.contains(Gpr::Rdi) && set.contains(Gpr::R12) && !set.contains(Gpr::Rax));
        assert_eq!(set.iter().collect::<Vec<_>>(), [Gpr::Rdi, Gpr::R12]);
    }
}
