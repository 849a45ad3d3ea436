//! Location lists of any compiler's object checked against its machine
//! code (`dwarfsmith verify --locations`).
//!
//! In: the bytes of an ELF x86-64 relocatable object with DWARF (read with
//! `dwarfsmith_emit::read`, so every location list is in the reader's
//! model form over function offsets). Out: the [`Finding`]s, each a range
//! of a variable's location list that the code contradicts.
//!
//! Each entry of each location list (single locations, valid over a whole
//! scope prologue included, are not checked) is checked over the
//! instructions its range covers (decoded with iced-x86; blocks and jump
//! targets from `linecheck`'s graph):
//! - (a) an address may not change: a write to a memory location's base
//!   register (or to an operand of a computed address), by an instruction
//!   inside the range other than its last, is a finding; a location based
//!   on rsp follows pushes, pops and `add`/`sub rsp`, and rsp moved from
//!   its value at the range start before the last instruction is one. A
//!   register a location reads as the variable's value (`DW_OP_regN`, an
//!   operand of a computed value) may take the variable's next value in
//!   the range (producers merge adjacent equal entries, so an update in
//!   place sits inside one range), but may not be lost to a call: a call
//!   inside the range, other than its last instruction, that changes the
//!   register (see `calls`) is a finding, unless a jump target follows it
//!   (the call may not return) or the register is the call's return
//!   register and holds the variable itself. Partial writes count for the
//!   bytes they change, and a write that keeps the bytes read (`mov rax,
//!   rax`, `movzx edi, di` under a 16-bit variable) is no write;
//! - (b) a memory location's base register must hold an address: its last
//!   definition before the range in the range's block must not be a plain
//!   value ([`effects::Definition::PlainValue`]); and a location that
//!   loads its address from memory (`DW_OP_bregN off, DW_OP_deref`) must
//!   not be contradicted by the code, which accesses that memory, before
//!   the base register changes, as something narrower than a pointer;
//! - (c) a `DW_OP_entry_value` must name a SysV parameter register (rdi,
//!   rsi, rdx, rcx, r8, r9, xmm0-xmm7): no other register's entry value is
//!   recoverable from a call site.

mod calls;
mod effects;
mod expression;

use std::collections::BTreeSet;
use std::fmt::{self, Write as _};

use dwarfsmith_emit::model::{
    ChildScope, DebugInfo, LocationEntry, ObjectModel, Scope, Type, TypeId, Variable,
    VariableLocation,
};
use dwarfsmith_emit::read::{read, read_line_listing};
use iced_x86::{
    Decoder, DecoderOptions, Formatter, Instruction, InstructionInfo, InstructionInfoFactory,
    Mnemonic,
};

use crate::linecheck::graph::Graph;
use crate::linecheck::{json_findings, json_string, table_targets};
use crate::x86::abi::{ARGUMENT_REGISTERS, XMM_ARGUMENT_REGISTERS};
use crate::x86::disasm::{intel_formatter, Flow};
use crate::x86::regs::{Gpr, PhysReg};
use calls::CallClobbers;
use effects::{Definition, StackEffect};
use expression::{Demands, PointerSlot, RegisterDemand, Role};

/// What is wrong with a range of a location list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An instruction inside the range writes a register the location reads.
    RegisterWritten {
        /// The register (`rax`).
        register: String,
        /// Why the location reads it (`register`, `value`, `base`).
        role: &'static str,
    },
    /// A call inside the range may change a caller-saved register the
    /// location reads.
    ClobberedByCall {
        /// The register.
        register: String,
        /// Why the location reads it.
        role: &'static str,
    },
    /// rsp, which the location is based on, moves inside the range.
    StackPointerMoved,
    /// The base register's last definition before the range leaves a
    /// plain value in it, not an address.
    BaseNotAnAddress {
        /// The register.
        register: String,
    },
    /// The location loads its address from memory the code uses as a
    /// narrower value.
    DerefOfNonPointer {
        /// The register the memory is addressed from.
        register: String,
        /// The width in bytes the code accesses it with.
        width: usize,
    },
    /// An entry value of a register that carries no parameter.
    EntryValueOfNonParameter {
        /// The register.
        register: String,
    },
}

impl Kind {
    /// A short name for the kind (the `kind` of `--json`).
    pub fn name(&self) -> &'static str {
        match self {
            Kind::RegisterWritten { .. } => "register-written",
            Kind::ClobberedByCall { .. } => "clobbered-by-call",
            Kind::StackPointerMoved => "stack-pointer-moved",
            Kind::BaseNotAnAddress { .. } => "base-not-an-address",
            Kind::DerefOfNonPointer { .. } => "deref-of-non-pointer",
            Kind::EntryValueOfNonParameter { .. } => "entry-value-of-non-parameter",
        }
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Kind::RegisterWritten { register, role } => {
                write!(f, "{register} ({role}) is written inside the range")
            }
            Kind::ClobberedByCall { register, role } => write!(
                f,
                "{register} ({role}) is caller-saved and the range runs across a call"
            ),
            Kind::StackPointerMoved => write!(f, "rsp (base) moves inside the range"),
            Kind::BaseNotAnAddress { register } => write!(
                f,
                "{register} (base) holds a plain value, not an address, at the range start"
            ),
            Kind::DerefOfNonPointer { register, width } => write!(
                f,
                "the location loads an 8-byte address from memory at {register} that the code uses as a {width}-byte value"
            ),
            Kind::EntryValueOfNonParameter { register } => {
                write!(f, "entry value of {register}, which is no parameter register")
            }
        }
    }
}

/// One range of a variable's location list that the machine code
/// contradicts. Addresses are offsets into the function's code section.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The function whose code the range covers.
    pub function: String,
    /// The variable (or parameter).
    pub variable: String,
    /// First address of the range.
    pub start: u64,
    /// One past the last address of the range.
    pub end: u64,
    /// The location over the range, as DWARF operations.
    pub op: String,
    /// The address of the instruction at fault (the range start for an
    /// entry value).
    pub address: u64,
    /// That instruction, in Intel syntax.
    pub instruction: String,
    /// What is wrong.
    pub kind: Kind,
}

/// Checks every location list of the object in `bytes`.
pub fn check_object(bytes: &[u8]) -> Result<Vec<Finding>, String> {
    let model = read(bytes).map_err(|e| e.to_string())?;
    let listing = read_line_listing(bytes).map_err(|e| e.to_string())?;
    let Some(debug) = &model.debug else {
        return Ok(Vec::new());
    };
    // Each function's code section and the offset of its first byte in it.
    let places: Vec<(String, u64)> = model
        .functions
        .iter()
        .enumerate()
        .map(|(index, function)| {
            listing
                .functions
                .get(index)
                .filter(|span| span.name == function.name)
                .and_then(|span| {
                    let (_, start, _) = listing
                        .code_sections
                        .iter()
                        .find(|(name, _, _)| *name == span.section)?;
                    Some((span.section.clone(), span.address - start))
                })
                .unwrap_or_else(|| (format!("?{index}"), 0))
        })
        .collect();
    let mut lists = Vec::new();
    for subprogram in &debug.subprograms {
        each_list(&subprogram.scope, &mut |variable, function, entries| {
            if function < model.functions.len() {
                lists.push((variable, function, entries));
            }
        });
    }
    let targets = table_targets(&model);
    let no_targets = BTreeSet::new();
    let code: Vec<FunctionCode> = model
        .functions
        .iter()
        .enumerate()
        .map(|(index, function)| {
            FunctionCode::decode(function, targets.get(&index).unwrap_or(&no_targets))
        })
        .collect();
    let checker = Checker {
        model: &model,
        debug,
        clobbers: CallClobbers::compute(&model, &code, &places),
        code,
        places,
    };
    let mut findings = Vec::new();
    for (variable, function, entries) in &lists {
        let size = variable.ty.and_then(|ty| checker.size_of(ty, 0));
        for entry in entries.iter() {
            let context = EntryContext {
                checker: &checker,
                function: *function,
                variable: &variable.name,
                entry,
            };
            context.check(size, &mut findings);
        }
    }
    findings.sort_by(|a, b| {
        (&a.function, a.start, &a.variable, a.address).cmp(&(
            &b.function,
            b.start,
            &b.variable,
            b.address,
        ))
    });
    findings.dedup();
    Ok(findings)
}

/// A function's instructions, decoded once.
pub(crate) struct FunctionCode {
    /// The instructions in address order (offsets from the function start).
    pub(crate) instructions: Vec<Instruction>,
    /// Per instruction: iced-x86's register and memory use.
    pub(crate) infos: Vec<InstructionInfo>,
    /// Per instruction: whether a relocation patches it.
    pub(crate) relocated: Vec<bool>,
    /// Offsets a branch of the function (or a jump table) goes to.
    targets: BTreeSet<u64>,
    /// Its basic blocks.
    blocks: Graph,
}

impl FunctionCode {
    /// Decodes `function`, whose jump tables name `table_targets`.
    fn decode(
        function: &dwarfsmith_emit::model::Function,
        table_targets: &BTreeSet<u64>,
    ) -> FunctionCode {
        let mut factory = InstructionInfoFactory::new();
        let mut instructions = Vec::new();
        let mut infos = Vec::new();
        let mut relocated = Vec::new();
        for instruction in Decoder::with_ip(64, &function.code, 0, DecoderOptions::NONE) {
            if instruction.is_invalid() {
                break;
            }
            let (start, end) = (instruction.ip(), instruction.next_ip());
            relocated.push(
                function
                    .relocations
                    .iter()
                    .any(|r| r.offset >= start && r.offset < end),
            );
            infos.push(factory.info(&instruction).clone());
            instructions.push(instruction);
        }
        let relocations: Vec<u64> = function.relocations.iter().map(|r| r.offset).collect();
        let blocks = Graph::build(&function.code, &relocations, table_targets, &[]);
        let mut targets = table_targets.clone();
        targets.extend(blocks.instructions.iter().filter_map(|i| match i.flow {
            Flow::Jump(target) | Flow::Branch(target) => Some(target),
            _ => None,
        }));
        FunctionCode {
            instructions,
            infos,
            relocated,
            targets,
            blocks,
        }
    }

    /// Indices of the instructions starting in `[start, end)`.
    fn within(&self, start: u64, end: u64) -> std::ops::Range<usize> {
        let first = self.instructions.partition_point(|i| i.ip() < start);
        let last = self.instructions.partition_point(|i| i.ip() < end);
        first..last
    }
}

struct Checker<'a> {
    model: &'a ObjectModel,
    debug: &'a DebugInfo,
    code: Vec<FunctionCode>,
    /// Each function's code section and its offset there.
    places: Vec<(String, u64)>,
    clobbers: CallClobbers,
}

/// Calls `visit` with every variable of `scope` (nested scopes included)
/// that has a location list, its function and its entries.
fn each_list<'a>(
    scope: &'a Scope,
    visit: &mut impl FnMut(&'a Variable, usize, &'a [LocationEntry]),
) {
    for variable in &scope.variables {
        if let VariableLocation::List { function, entries } = &variable.location {
            visit(variable, *function, entries);
        }
    }
    for child in &scope.children {
        match child {
            ChildScope::Lexical { scope, .. } | ChildScope::Inlined { scope, .. } => {
                each_list(scope, visit)
            }
        }
    }
}

impl Checker<'_> {
    /// The size in bytes of a type.
    fn size_of(&self, ty: TypeId, depth: usize) -> Option<u64> {
        if depth > 32 {
            return None;
        }
        match self.debug.types.get(ty)? {
            Type::Base { byte_size, .. } | Type::Enum { byte_size, .. } => Some(*byte_size),
            // decltype(nullptr) is a pointer's size.
            Type::Pointer(_) | Type::Reference { .. } | Type::Unspecified { .. } => Some(8),
            Type::Const(inner) | Type::Volatile(inner) | Type::Restrict(inner) => {
                self.size_of((*inner)?, depth + 1)
            }
            Type::Typedef { target, .. } => self.size_of((*target)?, depth + 1),
            Type::Struct { byte_size, .. } => *byte_size,
            Type::Array {
                element, counts, ..
            } => {
                let count: Option<u64> = counts.iter().copied().product();
                Some(self.size_of(*element, depth + 1)? * count?)
            }
            // A pointer to member is 8 or 16 bytes (data or function).
            Type::Subroutine { .. } | Type::Namespace { .. } | Type::PointerToMember { .. } => None,
        }
    }
}

/// One entry of one variable's list, being checked.
struct EntryContext<'a> {
    checker: &'a Checker<'a>,
    function: usize,
    variable: &'a str,
    entry: &'a LocationEntry,
}

impl EntryContext<'_> {
    fn code(&self) -> &FunctionCode {
        &self.checker.code[self.function]
    }

    fn check(&self, size: Option<u64>, findings: &mut Vec<Finding>) {
        let demands = expression::demands(&self.entry.location, size);
        let range = self.code().within(self.entry.start, self.entry.end);
        self.check_entry_values(&demands, findings);
        for demand in &demands.registers {
            if demand.register == PhysReg::Gpr(Gpr::Rsp) {
                self.check_stack_pointer(range.clone(), findings);
                continue;
            }
            self.check_writes(demand, range.clone(), findings);
            if demand.role == Role::Base {
                self.check_base_definition(demand.register, findings);
            }
        }
        for slot in &demands.pointer_slots {
            self.check_pointer_slot(slot, range.clone(), findings);
        }
    }

    fn finding(&self, at: Option<usize>, kind: Kind) -> Finding {
        let base = self.checker.places[self.function].1;
        let code = self.code();
        let index = at.or_else(|| Some(code.within(self.entry.start, self.entry.end).start));
        let instruction = index.and_then(|i| code.instructions.get(i));
        Finding {
            function: self.checker.model.functions[self.function].name.clone(),
            variable: self.variable.to_string(),
            start: base + self.entry.start,
            end: base + self.entry.end,
            op: expression::describe(&self.entry.location),
            address: base + instruction.map_or(self.entry.start, |i| i.ip()),
            instruction: instruction.map(intel_text).unwrap_or_default(),
            kind,
        }
    }

    /// (a): a register of the location written, or lost to a call, by an
    /// instruction of the range other than its last.
    fn check_writes(
        &self,
        demand: &RegisterDemand,
        range: std::ops::Range<usize>,
        findings: &mut Vec<Finding>,
    ) {
        let code = self.code();
        let Some(last) = range.end.checked_sub(1) else {
            return;
        };
        let register = demand.register.to_string();
        let role = role_name(demand.role);
        for index in range.start..last {
            let instruction = &code.instructions[index];
            let written = if effects::is_call(instruction) {
                let checker = self.checker;
                let clobbered = checker.clobbers.of_call(
                    checker.model,
                    &checker.places,
                    self.function,
                    instruction,
                );
                // A call followed by a jump target may not return (the
                // range goes on for the paths that jump there).
                let may_not_return = code.targets.contains(&instruction.next_ip());
                if !clobbered.contains(demand.register) || may_not_return {
                    continue;
                }
                // A return register takes the call's result, which may be
                // the variable's next value (whole, or as the operand of the
                // same computed value: `found = getenv(...)` twice, an `i1`
                // shown through a mask of al): checked as any other write.
                if !effects::is_return_register(demand.register) {
                    findings.push(self.finding(
                        Some(index),
                        Kind::ClobberedByCall {
                            register: register.clone(),
                            role,
                        },
                    ));
                    return;
                }
                demand.bytes
            } else {
                effects::written_bytes(instruction, &code.infos[index], demand.register)
            };
            if written & demand.bytes == 0 {
                continue;
            }
            // The variable's own register may take its next value inside a
            // range (producers merge adjacent equal entries): only an
            // address may not change.
            if matches!(demand.role, Role::Base | Role::Operand) {
                findings.push(self.finding(
                    Some(index),
                    Kind::RegisterWritten {
                        register: register.clone(),
                        role,
                    },
                ));
                return;
            }
        }
    }

    /// (a) for rsp: it must stay where it was at the range start up to the
    /// last instruction.
    fn check_stack_pointer(&self, range: std::ops::Range<usize>, findings: &mut Vec<Finding>) {
        let code = self.code();
        let Some(last) = range.end.checked_sub(1) else {
            return;
        };
        let mut moved = 0i64;
        for index in range.start..last {
            let instruction = &code.instructions[index];
            if effects::ends_flow(instruction) {
                // What follows is reached by jumps, from where rsp is as at
                // the range start.
                moved = 0;
                continue;
            }
            match effects::stack_effect(instruction, &code.infos[index]) {
                StackEffect::By(delta) => moved += delta,
                StackEffect::Unknown => moved = i64::MIN,
            }
            if moved != 0 {
                findings.push(self.finding(Some(index), Kind::StackPointerMoved));
                return;
            }
        }
    }

    /// (b): the last definition of a base register before the range, in
    /// the range's block, must not leave a plain value.
    fn check_base_definition(&self, register: PhysReg, findings: &mut Vec<Finding>) {
        let code = self.code();
        let graph = &code.blocks;
        let Some(block) = graph.piece_at(self.entry.start) else {
            return;
        };
        let block_start = graph.pieces[block].start;
        let first = code.within(block_start, self.entry.start);
        for index in first.rev() {
            let instruction = &code.instructions[index];
            if effects::is_call(instruction) {
                return;
            }
            if effects::written_bytes(instruction, &code.infos[index], register) == 0 {
                continue;
            }
            if effects::definition(instruction, register, code.relocated[index])
                == Definition::PlainValue
            {
                findings.push(self.finding(
                    Some(index),
                    Kind::BaseNotAnAddress {
                        register: register.to_string(),
                    },
                ));
            }
            return;
        }
    }

    /// (b): memory the location loads an address from, which the code
    /// accesses (while the base register holds what it holds at the range
    /// start) with a width no pointer has.
    fn check_pointer_slot(
        &self,
        slot: &PointerSlot,
        range: std::ops::Range<usize>,
        findings: &mut Vec<Finding>,
    ) {
        let code = self.code();
        for index in range {
            let instruction = &code.instructions[index];
            if instruction.mnemonic() != Mnemonic::Lea && instruction.mnemonic() != Mnemonic::Nop {
                for memory in code.infos[index].used_memory() {
                    let base = memory.base();
                    let same_place = base.is_gpr64()
                        && Gpr::ALL.get(base.number()).map(|g| PhysReg::Gpr(*g))
                            == Some(slot.register)
                        && memory.index() == iced_x86::Register::None
                        && memory.displacement() as i64 == slot.offset;
                    let width = memory.memory_size().size();
                    if same_place && (1..8).contains(&width) {
                        findings.push(self.finding(
                            Some(index),
                            Kind::DerefOfNonPointer {
                                register: slot.register.to_string(),
                                width,
                            },
                        ));
                        return;
                    }
                }
            }
            if effects::is_call(instruction)
                || effects::written_bytes(instruction, &code.infos[index], slot.register) != 0
            {
                return;
            }
        }
    }

    /// (c): entry values of parameter registers only.
    fn check_entry_values(&self, demands: &Demands, findings: &mut Vec<Finding>) {
        for &register in &demands.entry_values {
            let parameter = expression::register_of(register).is_some_and(|r| {
                ARGUMENT_REGISTERS.iter().any(|&g| PhysReg::Gpr(g) == r)
                    || XMM_ARGUMENT_REGISTERS.iter().any(|&x| PhysReg::Xmm(x) == r)
            });
            if !parameter {
                findings.push(self.finding(
                    None,
                    Kind::EntryValueOfNonParameter {
                        register: expression::register_name(register).to_lowercase(),
                    },
                ));
            }
        }
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Register => "register",
        Role::Value => "value",
        Role::Base => "base",
        Role::Operand => "address operand",
    }
}

fn intel_text(instruction: &Instruction) -> String {
    let mut text = String::new();
    intel_formatter().format(instruction, &mut text);
    text
}

/// The findings as lines of text naming `file` (or as a JSON document).
pub fn format_findings(file: &str, findings: &[Finding], json: bool) -> String {
    if json {
        return json_findings(findings.iter().map(|f| {
            format!(
                "{{\"file\": {}, \"function\": {}, \"variable\": {}, \"start\": {}, \"end\": {}, \
                 \"op\": {}, \"address\": {}, \"instruction\": {}, \"kind\": {}, \"message\": {}}}",
                json_string(file),
                json_string(&f.function),
                json_string(&f.variable),
                f.start,
                f.end,
                json_string(&f.op),
                f.address,
                json_string(&f.instruction),
                json_string(f.kind.name()),
                json_string(&f.kind.to_string()),
            )
        }));
    }
    let mut out = String::new();
    for f in findings {
        let _ = writeln!(
            out,
            "{file}: {}: {} [{:#x}, {:#x}) {}: {}: {:#x}: {}",
            f.function, f.variable, f.start, f.end, f.op, f.kind, f.address, f.instruction
        );
    }
    out
}
