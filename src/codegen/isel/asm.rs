//! Instruction selection for inline asm (`call asm "template", "constraints"`).
//!
//! In: a call of an [`ir::InlineAsm`] constant in AT&T syntax. Out: copies
//! into and out of the operands' registers around one [`K::InlineAsm`]
//! instruction that lists every register it reads and writes, so the
//! allocator keeps values out of its way.
//!
//! Rules it follows:
//! - Constraints: `r`, `q`, `R`, `g`, `rm`, `imr`… (a register unless the
//!   operand is a constant and `i`/`n` allow an immediate), `m` and `*m`
//!   (memory: the pointer argument, or for a value a stack slot it is
//!   stored to), `i`/`n` (immediates), `=` outputs, `&` early clobbers,
//!   tied inputs (`0`), and the registers `a`, `b`, `c`, `d`, `S`, `D` and
//!   `{ax}`-style names, which are pinned: copied into and out of that
//!   physical register. Clobbers of named registers are definitions of the
//!   statement; `~{memory}`, `~{cc}`, `~{flags}`, `~{dirflag}`, `~{fpsr}`
//!   need nothing (no value is kept in flags or cached from memory across
//!   an instruction). `x` puts a float, double or vector value in an xmm
//!   register (as input, output, `+x` tied, or early clobber); a template
//!   instruction that names such an operand is an error, so `x` serves the
//!   empty-template idioms (`asm volatile("" : "+x"(v))`) exactly. Anything
//!   else (alternatives, xmm clobbers…) is an error quoting the constraint.
//! - Templates are split at `;` and newlines into instructions; `$N` and
//!   `${N:k|q|w|b}` name operands, `%reg` registers, `$$imm` immediates,
//!   `lock` prefixes the next instruction. Each instruction must be one
//!   [`crate::x86::inline_asm`] maps onto an iced-x86 code; anything else
//!   is an error quoting the template.
//! - The alignment directives `.p2align n` and `.balign n` (zstd aligns
//!   its hot loops so) become [`InlineAsm::alignments`], which encoding
//!   pads with `nop`s; one with a fill or limit, and any other directive,
//!   is an error naming it.

use super::{container, exact_width, Selector};
use crate::codegen::mir::{
    Access, Address, AsmInstr, AsmOperand, InlineAsm, InstKind as K, Reg, RegClass, RegSet, Ri,
    StackSlotKind, Width,
};
use crate::error::Diagnostic;
use crate::ir::{self, InstId, Type};
use crate::x86::inline_asm::{code_for, register_named, Shape};
use crate::x86::Gpr;

/// Where one operand of the statement lives.
#[derive(Clone, Debug)]
enum Place {
    /// `regs[index]` of the statement.
    Reg(usize, Width),
    /// A pinned physical register.
    Fixed(Gpr, Width),
    /// `regs[index]` of the statement, an xmm register (`x`): the
    /// statement may keep a float, double or vector there; templates cannot
    /// name it (only operand-free and empty templates use `x` operands).
    Xmm(usize),
    /// Memory.
    Mem(Address),
    /// A constant.
    Imm(i64),
}

/// One parsed constraint.
struct Constraint {
    output: bool,
    early_clobber: bool,
    indirect: bool,
    codes: String,
}

/// The physical register a single-letter or `{name}` constraint pins.
fn pinned(codes: &str) -> Option<Gpr> {
    if let Some(name) = codes.strip_prefix('{').and_then(|c| c.strip_suffix('}')) {
        return register_named(name).map(|(g, _)| g);
    }
    Some(match codes {
        "a" => Gpr::Rax,
        "b" => Gpr::Rbx,
        "c" => Gpr::Rcx,
        "d" => Gpr::Rdx,
        "S" => Gpr::Rsi,
        "D" => Gpr::Rdi,
        _ => return None,
    })
}

impl Selector<'_> {
    /// Lowers a call of inline asm `asm` with `args`.
    pub(super) fn lower_inline_asm(
        &mut self,
        id: InstId,
        asm: &ir::InlineAsm,
        args: &[ir::CallArg],
    ) -> Result<(), Diagnostic> {
        let template = String::from_utf8_lossy(&asm.template).into_owned();
        let constraint_text = String::from_utf8_lossy(&asm.constraints).into_owned();
        let bad = |s: &Selector<'_>, what: String| {
            s.error(format!(
                "unsupported inline asm \"{template}\" (\"{constraint_text}\"): {what}"
            ))
        };
        if asm.intel_dialect {
            return Err(bad(self, "Intel syntax".into()));
        }
        let mut constraints = Vec::new();
        let mut uses = RegSet::EMPTY;
        let mut defs = RegSet::EMPTY;
        for c in constraint_text.split(',').filter(|c| !c.is_empty()) {
            if let Some(clobber) = c.strip_prefix("~{").and_then(|c| c.strip_suffix('}')) {
                match clobber {
                    "memory" | "cc" | "flags" | "dirflag" | "fpsr" => {}
                    name => match register_named(name) {
                        Some((g, _)) => defs.insert(g),
                        None => return Err(bad(self, format!("clobber '{name}'"))),
                    },
                }
                continue;
            }
            let mut rest = c;
            let output = rest.starts_with('=');
            rest = rest.trim_start_matches('=');
            let early_clobber = rest.starts_with('&');
            rest = rest.trim_start_matches('&');
            let indirect = rest.starts_with('*');
            rest = rest.trim_start_matches('*');
            constraints.push(Constraint {
                output,
                early_clobber,
                indirect,
                codes: rest.to_string(),
            });
        }
        // The result members, one per direct output.
        let result_regs: Vec<Reg> = match &self.f.inst(id).ty {
            Type::Void => Vec::new(),
            Type::Struct { .. } => self.result_leaves(id)?,
            _ => vec![self.dst(id)?],
        };
        let mut regs: Vec<(Reg, Access)> = Vec::new();
        let mut places: Vec<Place> = Vec::new();
        let mut after: Vec<(Reg, Reg)> = Vec::new();
        let mut next_result = 0;
        let mut next_arg = 0;
        for c in &constraints {
            let codes = c.codes.as_str();
            if c.output && !c.indirect {
                let Some(&dst) = result_regs.get(next_result) else {
                    return Err(bad(self, "more outputs than results".into()));
                };
                next_result += 1;
                let width = self.width_of(dst);
                let place = if self.is_xmm_operand(codes, dst) {
                    if c.early_clobber {
                        return Err(bad(self, format!("early-clobber output '{codes}'")));
                    }
                    regs.push((dst, Access::Def));
                    Place::Xmm(regs.len() - 1)
                } else if let Some(g) = pinned(codes) {
                    defs.insert(g);
                    after.push((dst, Reg::from(g)));
                    Place::Fixed(g, width)
                } else if codes.contains('r') || codes.contains('q') || codes == "g" {
                    let access = if c.early_clobber {
                        // Live before the statement: never shares an input's register.
                        self.emit(K::MovImm {
                            dst,
                            imm: 0,
                            width: Width::W32,
                        });
                        Access::UseDef
                    } else {
                        Access::Def
                    };
                    regs.push((dst, access));
                    Place::Reg(regs.len() - 1, width)
                } else {
                    return Err(bad(self, format!("output constraint '{codes}'")));
                };
                places.push(place);
                continue;
            }
            let Some(arg) = args.get(next_arg) else {
                return Err(bad(self, "more inputs than arguments".into()));
            };
            next_arg += 1;
            let value = &arg.value;
            if c.indirect {
                if !codes.contains('m') {
                    return Err(bad(self, format!("indirect constraint '{codes}'")));
                }
                let addr = self.address(value)?;
                places.push(Place::Mem(addr));
                continue;
            }
            if let Ok(n) = codes.parse::<usize>() {
                // Tied to output n: the input starts in the output's place.
                let src = self.reg(value)?;
                match places.get(n).cloned() {
                    Some(Place::Reg(index, width)) => {
                        let dst = regs[index].0;
                        self.emit(K::Copy { dst, src });
                        regs[index].1 = Access::UseDef;
                        places.push(Place::Reg(index, width));
                    }
                    Some(Place::Fixed(g, width)) => {
                        self.emit(K::Copy {
                            dst: Reg::from(g),
                            src,
                        });
                        uses.insert(g);
                        places.push(Place::Fixed(g, width));
                    }
                    Some(Place::Xmm(index)) => {
                        let dst = regs[index].0;
                        self.emit(K::Copy { dst, src });
                        regs[index].1 = Access::UseDef;
                        places.push(Place::Xmm(index));
                    }
                    _ => return Err(bad(self, format!("tied operand '{codes}'"))),
                }
                continue;
            }
            if codes.contains('x') && self.value_is_xmm(value) {
                let r = self.reg(value)?;
                regs.push((r, Access::Use));
                places.push(Place::Xmm(regs.len() - 1));
                continue;
            }
            let bits = self.bits_of(value)?;
            let width = exact_width(bits).unwrap_or(container(bits));
            let constant = self.const_int(value);
            if let Some(g) = pinned(codes) {
                let src = self.reg(value)?;
                self.emit(K::Copy {
                    dst: Reg::from(g),
                    src,
                });
                uses.insert(g);
                places.push(Place::Fixed(g, width));
            } else if constant.is_some() && (codes.contains('i') || codes.contains('n')) {
                places.push(Place::Imm(constant.unwrap_or(0)));
            } else if codes.contains('r') || codes.contains('q') || codes == "g" {
                let r = self.reg(value)?;
                regs.push((r, Access::Use));
                places.push(Place::Reg(regs.len() - 1, width));
            } else if codes == "m" || codes == "o" {
                let slot = self.mir.new_stack_slot(8, 8, StackSlotKind::Alloca);
                let r = self.reg(value)?;
                let addr = Address::slot(slot, 0);
                self.emit(K::Store {
                    src: Ri::Reg(r),
                    addr: addr.clone(),
                    width,
                });
                places.push(Place::Mem(addr));
            } else {
                return Err(bad(self, format!("input constraint '{codes}'")));
            }
        }
        let (instrs, alignments) = match parse_template(&template, &places) {
            Ok(parsed) => parsed,
            Err(what) => return Err(bad(self, what)),
        };
        self.emit(K::InlineAsm(Box::new(InlineAsm {
            regs,
            instrs,
            uses,
            defs,
            alignments,
            template,
        })));
        for (dst, src) in after {
            self.emit(K::Copy { dst, src });
        }
        Ok(())
    }
}

impl Selector<'_> {
    /// Whether an output constraint puts `dst` in an xmm register.
    fn is_xmm_operand(&self, codes: &str, dst: Reg) -> bool {
        codes.contains('x') && self.mir.class_of(dst) == RegClass::Xmm
    }

    /// Whether `value` is of a type that lives in an xmm register.
    fn value_is_xmm(&self, value: &ir::Value) -> bool {
        matches!(
            self.f.value_type(value),
            Type::Float(ir::FloatKind::Float | ir::FloatKind::Double) | Type::Vector { .. }
        )
    }
}

/// An operand of a template instruction before its code is chosen.
fn operand(text: &str, places: &[Place]) -> Result<AsmOperand, String> {
    let text = text.trim();
    // `$$` in LLVM's text is AT&T's `$`: an immediate.
    if let Some(rest) = text.strip_prefix('\u{0}') {
        let value = if let Some(hex) = rest.strip_prefix("0x") {
            i64::from_str_radix(hex, 16).ok()
        } else {
            rest.parse::<i64>().ok()
        };
        return value
            .map(AsmOperand::Imm)
            .ok_or_else(|| format!("immediate '${rest}'"));
    }
    if let Some(rest) = text.strip_prefix('$') {
        let (number, modifier) = match rest.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            Some(inner) => match inner.split_once(':') {
                Some((n, m)) => (n, Some(m)),
                None => (inner, None),
            },
            None => (rest, None),
        };
        if let Ok(n) = number.parse::<usize>() {
            let width = match modifier {
                None => None,
                Some("b") => Some(Width::W8),
                Some("w") => Some(Width::W16),
                Some("k") => Some(Width::W32),
                Some("q") => Some(Width::W64),
                Some(m) => return Err(format!("operand modifier '{m}'")),
            };
            return match places.get(n) {
                Some(Place::Reg(index, w)) => Ok(AsmOperand::Reg {
                    index: *index,
                    width: width.unwrap_or(*w),
                }),
                Some(Place::Fixed(g, w)) => Ok(AsmOperand::Fixed(*g, width.unwrap_or(*w))),
                Some(Place::Mem(a)) => Ok(AsmOperand::Mem(a.clone())),
                Some(Place::Imm(i)) => Ok(AsmOperand::Imm(*i)),
                Some(Place::Xmm(_)) => Err(format!("xmm operand ${n} in an instruction")),
                None => Err(format!("operand ${n} does not exist")),
            };
        }
        return Err(format!("operand '{text}'"));
    }
    if let Some(name) = text.strip_prefix('%') {
        return register_named(name)
            .map(|(g, w)| AsmOperand::Fixed(g, w))
            .ok_or_else(|| format!("register '{text}'"));
    }
    Err(format!("operand '{text}'"))
}

/// The width of a register operand, if the operand is one.
fn register_width(op: &AsmOperand) -> Option<Width> {
    match op {
        AsmOperand::Reg { width, .. } | AsmOperand::Fixed(_, width) => Some(*width),
        _ => None,
    }
}

/// Alignment directives: see [`InlineAsm::alignments`].
type Alignments = Vec<(usize, u32)>;

/// The template as machine instructions, and its alignment directives
/// (see [`InlineAsm::alignments`]).
fn parse_template(template: &str, places: &[Place]) -> Result<(Vec<AsmInstr>, Alignments), String> {
    let text = template.replace("$$", "\u{0}");
    let mut instrs = Vec::new();
    let mut alignments = Vec::new();
    let mut lock = false;
    for statement in text.split([';', '\n']) {
        let statement = statement.trim();
        if statement.is_empty() {
            continue;
        }
        let (mut mnemonic, mut rest) = statement
            .split_once(char::is_whitespace)
            .unwrap_or((statement, ""));
        if mnemonic.starts_with('.') {
            if lock {
                return Err(format!("a 'lock' prefix before '{statement}'"));
            }
            alignments.push((instrs.len(), alignment(mnemonic, rest.trim())?));
            continue;
        }
        if mnemonic == "lock" {
            lock = true;
            let next = rest.trim();
            if next.is_empty() {
                continue;
            }
            (mnemonic, rest) = next.split_once(char::is_whitespace).unwrap_or((next, ""));
        }
        let mut operands = rest
            .split(',')
            .map(str::trim)
            .filter(|o| !o.is_empty())
            .map(|o| operand(o, places))
            .collect::<Result<Vec<_>, _>>()?;
        // AT&T lists the destination last.
        operands.reverse();
        let reg_or_mem = |o: &AsmOperand| !matches!(o, AsmOperand::Imm(_));
        let shape = match operands.as_slice() {
            [] => Shape::None,
            [o] if register_width(o).is_some() => Shape::R,
            [o] if reg_or_mem(o) => Shape::Rm,
            [d, AsmOperand::Imm(_)] if reg_or_mem(d) => Shape::RmImm,
            [d, s] if register_width(s).is_some() && reg_or_mem(d) => Shape::RmR,
            [d, AsmOperand::Mem(_)] if register_width(d).is_some() => Shape::RRm,
            _ => return Err(format!("the operands of '{statement}'")),
        };
        let width = operands.iter().find_map(register_width);
        // Two registers fit both RmR and RRm forms (cmovCC has only RRm).
        let both_registers = shape == Shape::RmR && register_width(&operands[0]).is_some();
        let (code, width) = code_for(mnemonic, shape, width)
            .or_else(|| (shape == Shape::R).then(|| code_for(mnemonic, Shape::Rm, width))?)
            .or_else(|| both_registers.then(|| code_for(mnemonic, Shape::RRm, width))?)
            .ok_or_else(|| format!("instruction '{statement}'"))?;
        // Registers take the instruction's width (a suffix may narrow them).
        for o in &mut operands {
            match o {
                AsmOperand::Reg { width: w, .. } | AsmOperand::Fixed(_, w) => *w = width,
                _ => {}
            }
        }
        instrs.push(AsmInstr {
            code,
            lock,
            operands,
        });
        lock = false;
    }
    if lock {
        return Err("a 'lock' prefix without an instruction".into());
    }
    Ok((instrs, alignments))
}

/// The bytes an alignment directive asks for: `.p2align n` (2^n) or
/// `.balign n` (n, a power of two), with no fill or limit (the GNU
/// assembler's defaults: `nop`s, however many it takes). Anything else is
/// an error naming the directive.
fn alignment(directive: &str, argument: &str) -> Result<u32, String> {
    let statement = || format!("directive '{directive} {argument}'");
    let value: u32 = argument.parse().map_err(|_| statement())?;
    let bytes = match directive {
        ".p2align" if value <= 12 => 1 << value,
        ".balign" if value.is_power_of_two() && value <= 4096 => value,
        _ => return Err(statement()),
    };
    Ok(bytes)
}
