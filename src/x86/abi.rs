//! Facts of the SysV x86-64 calling convention that code generation needs.
//!
//! In: nothing. Out: constant register lists and sets. Promise: these are
//! the psABI's rules for integer and pointer values; the red zone is never
//! used (every frame allocates what it touches below rsp).

use super::regs::{Gpr, GprSet};

/// Integer/pointer argument registers, in argument order.
pub const ARGUMENT_REGISTERS: [Gpr; 6] = [Gpr::Rdi, Gpr::Rsi, Gpr::Rdx, Gpr::Rcx, Gpr::R8, Gpr::R9];

/// The integer return register.
pub const RETURN_REGISTER: Gpr = Gpr::Rax;

/// Registers a callee must preserve (rsp aside).
pub const CALLEE_SAVED: GprSet =
    GprSet(1 << 3 /* rbx */ | 1 << 5 /* rbp */ | 1 << 12 | 1 << 13 | 1 << 14 | 1 << 15);

/// Registers a call may clobber.
pub const CALLER_SAVED: GprSet = GprSet(
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

/// The order in which the register allocator tries registers: caller-saved
/// first (free to use), then callee-saved (each costs a save and restore).
/// rsp and rbp (the frame pointer) are never allocated.
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

/// Size of a stack-passed argument slot in bytes.
pub const STACK_ARGUMENT_SIZE: u32 = 8;

/// Stack alignment required at a call instruction.
pub const STACK_ALIGNMENT: u32 = 16;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caller_and_callee_saved_partition_all_but_rsp() {
        assert_eq!(CALLER_SAVED.0 & CALLEE_SAVED.0, 0);
        let all_but_rsp = GprSet(!(1 << Gpr::Rsp.hw()));
        assert_eq!(GprSet(CALLER_SAVED.0 | CALLEE_SAVED.0), all_but_rsp);
        assert_eq!(
            CALLEE_SAVED.iter().collect::<Vec<_>>(),
            [Gpr::Rbx, Gpr::Rbp, Gpr::R12, Gpr::R13, Gpr::R14, Gpr::R15]
        );
    }
}
