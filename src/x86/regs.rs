//! The x86-64 registers the back end allocates: the sixteen general-purpose
//! registers and the sixteen SSE registers xmm0–xmm15, their hardware and
//! DWARF numbers, their classes, and small bit sets over them.
//!
//! In: nothing. Out: [`Gpr`], [`Xmm`], [`PhysReg`] (either), [`RegClass`],
//! [`GprSet`] and [`RegSet`]. Promise: `hw()` is the encoding number (rax 0,
//! rcx 1, …, r15 15; xmm0 0 … xmm15 15) and `dwarf()` the SysV DWARF
//! register number (rax 0, rdx 1, rcx 2, rbx 3, rsi 4, rdi 5, rbp 6, rsp 7,
//! r8–r15 8–15, xmm0–xmm15 17–32). [`PhysReg::index`] numbers all 32
//! registers densely (general-purpose 0–15 by hardware number, then xmm
//! 16–31), which is the bit of a register in a [`RegSet`].

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
        set_bits(u32::from(self.0)).map(|i| Gpr::ALL[i])
    }
}

/// An SSE register, xmm0–xmm15.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Xmm(u8);

impl Xmm {
    /// All sixteen in hardware order.
    pub const ALL: [Xmm; 16] = {
        let mut all = [Xmm(0); 16];
        let mut i = 0;
        while i < 16 {
            all[i] = Xmm(i as u8);
            i += 1;
        }
        all
    };

    /// xmm`n` (`n` < 16).
    pub const fn new(n: u8) -> Xmm {
        assert!(n < 16, "there are sixteen xmm registers");
        Xmm(n)
    }

    /// The hardware encoding number (0–15).
    pub fn hw(self) -> u8 {
        self.0
    }

    /// The SysV x86-64 DWARF register number (17–32).
    pub fn dwarf(self) -> u16 {
        17 + u16::from(self.0)
    }

    /// The assembler name (`xmm0`, …).
    pub fn name(self) -> &'static str {
        const NAMES: [&str; 16] = [
            "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9",
            "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15",
        ];
        NAMES[usize::from(self.0)]
    }
}

impl fmt::Display for Xmm {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A register class: which registers a value may live in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RegClass {
    /// The general-purpose registers (integers, pointers).
    General,
    /// The SSE registers (float, double, vectors).
    Xmm,
}

/// A physical register of either class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum PhysReg {
    /// A general-purpose register.
    Gpr(Gpr),
    /// An SSE register.
    Xmm(Xmm),
}

impl PhysReg {
    /// Number of physical registers ([`PhysReg::index`] is below it).
    pub const COUNT: usize = 32;

    /// The dense number of this register: general-purpose 0–15 by hardware
    /// number, xmm 16–31.
    pub fn index(self) -> usize {
        match self {
            PhysReg::Gpr(g) => usize::from(g.hw()),
            PhysReg::Xmm(x) => 16 + usize::from(x.hw()),
        }
    }

    /// The register with dense number `index` (< [`PhysReg::COUNT`]).
    pub fn from_index(index: usize) -> PhysReg {
        if index < 16 {
            PhysReg::Gpr(Gpr::ALL[index])
        } else {
            PhysReg::Xmm(Xmm::new((index - 16) as u8))
        }
    }

    /// Its class.
    pub fn class(self) -> RegClass {
        match self {
            PhysReg::Gpr(_) => RegClass::General,
            PhysReg::Xmm(_) => RegClass::Xmm,
        }
    }

    /// The SysV x86-64 DWARF register number.
    pub fn dwarf(self) -> u16 {
        match self {
            PhysReg::Gpr(g) => g.dwarf(),
            PhysReg::Xmm(x) => x.dwarf(),
        }
    }

    /// The general-purpose register, if it is one.
    pub fn gpr(self) -> Option<Gpr> {
        match self {
            PhysReg::Gpr(g) => Some(g),
            PhysReg::Xmm(_) => None,
        }
    }

    /// The xmm register, if it is one.
    pub fn xmm(self) -> Option<Xmm> {
        match self {
            PhysReg::Xmm(x) => Some(x),
            PhysReg::Gpr(_) => None,
        }
    }
}

impl From<Gpr> for PhysReg {
    fn from(g: Gpr) -> PhysReg {
        PhysReg::Gpr(g)
    }
}

impl From<Xmm> for PhysReg {
    fn from(x: Xmm) -> PhysReg {
        PhysReg::Xmm(x)
    }
}

impl fmt::Display for PhysReg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PhysReg::Gpr(g) => g.fmt(f),
            PhysReg::Xmm(x) => x.fmt(f),
        }
    }
}

/// A set of physical registers of both classes (bit [`PhysReg::index`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct RegSet(pub u32);

impl RegSet {
    /// The empty set.
    pub const EMPTY: RegSet = RegSet(0);

    /// The set holding exactly `regs`.
    pub fn of(regs: &[PhysReg]) -> RegSet {
        regs.iter().fold(RegSet::EMPTY, |set, &r| set.with(r))
    }

    /// The general-purpose registers of `gprs`.
    pub const fn from_gprs(gprs: GprSet) -> RegSet {
        RegSet(gprs.0 as u32)
    }

    /// All sixteen xmm registers.
    pub const ALL_XMM: RegSet = RegSet(0xffff_0000);

    /// This set plus `reg`.
    pub fn with(self, reg: impl Into<PhysReg>) -> RegSet {
        RegSet(self.0 | 1 << reg.into().index())
    }

    /// Adds `reg`.
    pub fn insert(&mut self, reg: impl Into<PhysReg>) {
        self.0 |= 1 << reg.into().index();
    }

    /// Whether `reg` is in the set.
    pub fn contains(self, reg: impl Into<PhysReg>) -> bool {
        self.0 & (1 << reg.into().index()) != 0
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The union of both sets.
    pub fn union(self, other: RegSet) -> RegSet {
        RegSet(self.0 | other.0)
    }

    /// The general-purpose members.
    pub fn gprs(self) -> GprSet {
        GprSet(self.0 as u16)
    }

    /// The members in [`PhysReg::index`] order.
    pub fn iter(self) -> impl Iterator<Item = PhysReg> {
        set_bits(self.0).map(PhysReg::from_index)
    }
}

/// The numbers of the set bits of `bits`, lowest first (a step per member,
/// not per possible member).
fn set_bits(mut bits: u32) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        if bits == 0 {
            return None;
        }
        let i = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        Some(i)
    })
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
    fn xmm_dwarf_numbers_and_dense_indices() {
        let x = Xmm::new(15);
        assert_eq!((x.name(), x.dwarf()), ("xmm15", 32));
        assert_eq!(Xmm::new(0).dwarf(), 17);
        for i in 0..PhysReg::COUNT {
            assert_eq!(PhysReg::from_index(i).index(), i);
        }
        assert_eq!(PhysReg::from(Gpr::R9).index(), 9);
        assert_eq!(PhysReg::from(Xmm::new(3)).index(), 19);
        let set = RegSet::of(&[Gpr::Rax.into(), Xmm::new(1).into()]);
        assert_eq!(
            set.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
            ["rax", "xmm1"]
        );
        assert_eq!(set.gprs(), GprSet::of(&[Gpr::Rax]));
    }

    #[test]
    fn set_membership() {
        let set = GprSet::of(&[Gpr::Rdi, Gpr::R12]);
        assert!(set.contains(Gpr::Rdi) && set.contains(Gpr::R12) && !set.contains(Gpr::Rax));
        assert_eq!(set.iter().collect::<Vec<_>>(), [Gpr::Rdi, Gpr::R12]);
    }
}
