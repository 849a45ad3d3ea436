//! Loads and stores of integers of any width up to 64 bits, the widths
//! with no machine instruction of their own included (`i24`, `i40`, `i48`,
//! `i56`, `i20`, ...: clang gives these to bitfield storage units, packed
//! ones above all).
//!
//! In: an integer of `bits` (1 to 64) and an address. Out: MIR moving its
//! store size, `ceil(bits / 8)` bytes, as LLVM's type legalisation does.
//!
//! Rules:
//! - The bytes are moved in pieces of 8, 4, 2 and 1 bytes from the lowest
//!   address up, each as large as the bytes left allow (7 bytes: 4, 2, 1).
//! - A load reads each piece zero-extended, shifts it to its byte offset
//!   and ors it into the result; the register then holds the value in its
//!   container (32 or 64 bits) with the bits above `bits` as memory had
//!   them, which the selector's rule for narrow values allows (unspecified
//!   bits are extended away before anything looks at them).
//! - A store of a width that is not a whole number of bytes first clears
//!   the bits above `bits` (LLVM's store of `i20` writes zeros there), then
//!   writes each piece, shifting the value down between pieces.

use super::*;

/// The pieces `(byte offset, width)` that move `bytes` bytes (1 to 8).
fn pieces(bytes: u32) -> Vec<(i32, Width)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at < bytes {
        let (size, width) = match bytes - at {
            8 => (8, Width::W64),
            4..=7 => (4, Width::W32),
            2 | 3 => (2, Width::W16),
            _ => (1, Width::W8),
        };
        out.push((at as i32, width));
        at += size;
    }
    out
}

impl Selector<'_> {
    /// Loads an integer of `bits` (1 to 64) from `addr` into `dst`, a
    /// register of the value's container width.
    pub(super) fn load_int(&mut self, dst: Reg, bits: u32, addr: Address) {
        let container = container(bits);
        for (n, (offset, width)) in pieces(bits.div_ceil(8)).into_iter().enumerate() {
            let target = if n == 0 { dst } else { self.vreg(container) };
            let mut at = addr.clone();
            at.disp += offset;
            match width {
                Width::W8 | Width::W16 => self.emit(K::Extend {
                    dst: target,
                    src: Rm::Mem(at),
                    from: width,
                    to: Width::W32,
                    signed: false,
                }),
                _ => self.emit(K::Load {
                    dst: target,
                    addr: at,
                    width,
                }),
            }
            if n > 0 {
                self.emit(K::Shift {
                    op: ShiftOp::Shl,
                    width: container,
                    dst: target,
                    amount: ShiftAmount::Imm(8 * offset as u8),
                });
                self.emit(K::Alu {
                    op: AluOp::Or,
                    width: container,
                    dst,
                    src: Rmi::Reg(target),
                });
            }
        }
    }

    /// Stores the integer of `bits` (1 to 64) held in `src` to `addr`;
    /// `src` itself is left unchanged.
    pub(super) fn store_int(&mut self, src: Reg, bits: u32, addr: Address) {
        let container = container(bits);
        let pieces = pieces(bits.div_ceil(8));
        let mut value = src;
        if !bits.is_multiple_of(8) {
            value = self.extend(src, bits, container, false);
        }
        for (n, &(offset, width)) in pieces.iter().enumerate() {
            if n > 0 {
                let shift = offset - pieces[n - 1].0;
                let rest = self.vreg(container);
                self.emit(K::Copy {
                    dst: rest,
                    src: value,
                });
                self.emit(K::Shift {
                    op: ShiftOp::Shr,
                    width: container,
                    dst: rest,
                    amount: ShiftAmount::Imm(8 * shift as u8),
                });
                value = rest;
            }
            let mut at = addr.clone();
            at.disp += offset;
            self.emit(K::Store {
                src: Ri::Reg(value),
                addr: at,
                width,
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_each_store_size_from_the_lowest_byte() {
        let shown: Vec<String> = (1..=8)
            .map(|bytes| {
                let parts: Vec<String> = pieces(bytes)
                    .iter()
                    .map(|(at, w)| format!("{at}:{w:?}"))
                    .collect();
                format!("{bytes}: {}", parts.join(" "))
            })
            .collect();
        assert_eq!(
            shown,
            [
                "1: 0:W8",
                "2: 0:W16",
                "3: 0:W16 2:W8",
                "4: 0:W32",
                "5: 0:W32 4:W8",
                "6: 0:W32 4:W16",
                "7: 0:W32 4:W16 6:W8",
                "8: 0:W64",
            ]
        );
    }
}
