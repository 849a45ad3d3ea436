//! Facts of the SysV x86-64 calling convention that code generation needs.
//!
//! In: nothing. Out: constant register lists and sets. Promise: these are
//! the psABI's rules for integer, pointer and SSE (float, double) values;
//! the red zone is never used (every frame allocates what it touches below
//! rsp).

use super::regs::{Gpr, GprSet, PhysReg, RegClass, RegSet, Xmm};

/// Integer/pointer argument registers, in argument order.
pub const ARGUMENT_REGISTERS: [Gpr; 6] = [Gpr::Rdi, Gpr::Rsi, Gpr::Rdx, Gpr::Rcx, Gpr::R8, Gpr::R9];

/// The integer return register.
pub const RETURN_REGISTER: Gpr = Gpr::Rax;

/// The integer registers of a value returned in parts (a struct's
/// integer members, an `i128`), in order.
pub const RETURN_REGISTERS: [Gpr; 2] = [Gpr::Rax, Gpr::Rdx];

/// The SSE registers of a value returned in parts, in order.
pub const XMM_RETURN_REGISTERS: [Xmm; 2] = [Xmm::new(0), Xmm::new(1)];

/// The register an indirect tail call jumps through: caller-saved, no
/// argument register, and not restored by the epilogue.
pub const TAIL_CALL_REGISTER: Gpr = Gpr::R11;

/// Bytes of the register save area of a variadic function: six integer
/// registers (8 bytes each) then eight SSE registers (16 bytes each); a
/// `va_list`'s `gp_offset` and `fp_offset` index it.
pub const REGISTER_SAVE_AREA_SIZE: u32 = 6 * 8 + 8 * 16;

/// Where the SSE registers start in the register save area.
pub const REGISTER_SAVE_AREA_FP_START: u32 = 6 * 8;

/// SSE argument registers (float, double), in argument order.
pub const XMM_ARGUMENT_REGISTERS: [Xmm; 8] = [
    Xmm::new(0),
    Xmm::new(1),
    Xmm::new(2),
    Xmm::new(3),
    Xmm::new(4),
    Xmm::new(5),
    Xmm::new(6),
    Xmm::new(7),
];

/// Whether `register` passes an argument (integer or SSE).
pub fn is_argument_register(register: PhysReg) -> bool {
    match register {
        PhysReg::Gpr(g) => ARGUMENT_REGISTERS.contains(&g),
        PhysReg::Xmm(x) => XMM_ARGUMENT_REGISTERS.contains(&x),
    }
}

/// The SSE return register.
pub const XMM_RETURN_REGISTER: Xmm = Xmm::new(0);

/// Registers a callee must preserve (rsp aside).
pub const CALLEE_SAVED: GprSet =
    GprSet(1 << 3 /* rbx */ | 1 << 5 /* rbp */ | 1 << 12 | 1 << 13 | 1 << 14 | 1 << 15);

/// General-purpose registers a call may clobber.
pub const CALLER_SAVED_GPRS: GprSet = GprSet(
    1 << 0 /* rax */
        | 1 << 1 /* rcx */
        | 1 << 2 /* rdx */
        | 1 << 6 /* rsi */
        | 1 << 7 /* rdi */
        | 1 << 8
        | 1 << 9
        | 1 << 10
        | 1 << 11,
);

/// Registers a call may clobber: the caller-saved general-purpose
/// registers and every xmm register (SysV preserves none of them).
pub const CALLER_SAVED: RegSet = RegSet(RegSet::from_gprs(CALLER_SAVED_GPRS).0 | RegSet::ALL_XMM.0);

/// The order in which the register allocator tries registers: caller-saved
/// first (free to use), then callee-saved (each costs a save and restore).
/// rsp is never allocated, nor rbp where it is the frame pointer (else it
/// comes last, as [`allocation_order`] says).
pub const ALLOCATION_ORDER: [Gpr; 14] = [
    Gpr::Rax,
    Gpr::Rcx,
    Gpr::Rdx,
    Gpr::Rsi,
    Gpr::Rdi,
    Gpr::R8,
    Gpr::R9,
    Gpr::R10,
    Gpr::R11,
    Gpr::Rbx,
    Gpr::R12,
    Gpr::R13,
    Gpr::R14,
    Gpr::R15,
];

/// The order in which the register allocator tries xmm registers (all
/// caller-saved, so no order costs more than another).
pub const XMM_ALLOCATION_ORDER: [Xmm; 16] = Xmm::ALL;

/// The registers the allocator may give a value of `class`, in the order
/// it tries them: [`ALLOCATION_ORDER`], then rbp when the function has no
/// frame pointer (`rbp_free`).
pub fn allocation_order(class: RegClass, rbp_free: bool) -> Vec<super::PhysReg> {
    match class {
        RegClass::General => ALLOCATION_ORDER
            .iter()
            .copied()
            .chain(rbp_free.then_some(Gpr::Rbp))
            .map(|g| g.into())
            .collect(),
        RegClass::Xmm => XMM_ALLOCATION_ORDER.iter().map(|&x| x.into()).collect(),
    }
}

/// Size of a stack-passed argument slot in bytes.
pub const STACK_ARGUMENT_SIZE: u32 = 8;

/// Stack alignment required at a call instruction.
pub const STACK_ALIGNMENT: u32 = 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caller_and_callee_saved_partition_all_but_rsp() {
        assert_eq!(CALLER_SAVED_GPRS.0 & CALLEE_SAVED.0, 0);
        let all_but_rsp = GprSet(!(1 << Gpr::Rsp.hw()));
        assert_eq!(GprSet(CALLER_SAVED_GPRS.0 | CALLEE_SAVED.0), all_but_rsp);
        assert_eq!(CALLER_SAVED.gprs(), CALLER_SAVED_GPRS);
        assert!(Xmm::ALL.iter().all(|&x| CALLER_SAVED.contains(x)));
        assert_eq!(
            CALLEE_SAVED.iter().collect::<Vec<_>>(),
            [Gpr::Rbx, Gpr::Rbp, Gpr::R12, Gpr::R13, Gpr::R14, Gpr::R15]
        );
    }
}
