//! Which registers a call may change.
//!
//! In: the object's functions, decoded. Out: [`CallClobbers`], which says
//! for each call instruction which registers it may change.
//!
//! Rule: a call to a function outside the object, or through a register or
//! memory, may change every caller-saved register of SysV (an indirect
//! jump is taken to be a jump table of its function). A call to a
//! function of the object changes at most the caller-saved registers that
//! function, and every function it calls or tail-calls, writes (gcc's
//! interprocedural register allocation keeps values in caller-saved
//! registers across such calls, and its location lists say so).

use std::collections::HashMap;

use dwarfsmith_emit::model::{ObjectModel, Symbol};
use iced_x86::{FlowControl, Instruction};

use super::effects::{is_call, written_registers};
use super::FunctionCode;
use crate::x86::abi::CALLER_SAVED;
use crate::x86::regs::RegSet;

/// Where each function of the object is: its code section and the offset
/// of its first byte in it.
pub type Places = [(String, u64)];

/// The registers each function of an object may change for its caller.
pub struct CallClobbers {
    per_function: Vec<RegSet>,
    by_name: HashMap<String, usize>,
    by_place: HashMap<(String, u64), usize>,
}

impl CallClobbers {
    /// Works out what every function of `model` may change.
    pub fn compute(model: &ObjectModel, code: &[FunctionCode], places: &Places) -> CallClobbers {
        let mut clobbers = CallClobbers {
            per_function: vec![RegSet::EMPTY; code.len()],
            by_name: HashMap::new(),
            by_place: HashMap::new(),
        };
        for (index, function) in model.functions.iter().enumerate() {
            clobbers.by_name.insert(function.name.clone(), index);
            for alias in &function.aliases {
                clobbers.by_name.insert(alias.name.clone(), index);
            }
            clobbers.by_place.insert(places[index].clone(), index);
        }
        let mut callees: Vec<Vec<usize>> = vec![Vec::new(); code.len()];
        for (function, decoded) in code.iter().enumerate() {
            let mut written = RegSet::EMPTY;
            for (index, (instruction, info)) in
                decoded.instructions.iter().zip(&decoded.infos).enumerate()
            {
                let jumps_out = instruction.flow_control() == FlowControl::UnconditionalBranch
                    && (decoded.relocated[index]
                        || instruction.near_branch_target()
                            >= model.functions[function].code.len() as u64);
                // Indirect jumps are taken for jump tables of the function.
                if is_call(instruction) || jumps_out {
                    match clobbers.local_target(model, places, function, instruction) {
                        Some(callee) => callees[function].push(callee),
                        None => written = written.union(CALLER_SAVED),
                    }
                } else {
                    written = written.union(written_registers(info));
                }
            }
            clobbers.per_function[function] = RegSet(written.0 & CALLER_SAVED.0);
        }
        loop {
            let mut changed = false;
            for (function, called) in callees.iter().enumerate() {
                let with_callees = called
                    .iter()
                    .fold(clobbers.per_function[function], |set, &callee| {
                        set.union(clobbers.per_function[callee])
                    });
                if with_callees != clobbers.per_function[function] {
                    clobbers.per_function[function] = with_callees;
                    changed = true;
                }
            }
            if !changed {
                return clobbers;
            }
        }
    }

    /// The function of the object whose first byte a call or jump of
    /// `function` goes to: named by its relocation, or, unrelocated (the
    /// assembler resolved a call within one section), by its target.
    fn local_target(
        &self,
        model: &ObjectModel,
        places: &Places,
        function: usize,
        instruction: &Instruction,
    ) -> Option<usize> {
        let (start, end) = (instruction.ip(), instruction.next_ip());
        let relocation = model.functions[function]
            .relocations
            .iter()
            .find(|r| r.offset >= start && r.offset < end);
        let Some(relocation) = relocation else {
            let (section, base) = &places[function];
            let target = base.wrapping_add(instruction.near_branch_target());
            return self.by_place.get(&(section.clone(), target)).copied();
        };
        // The field holds target - (field end); the addend makes it so.
        let at_start = relocation.addend + (end - relocation.offset) as i64;
        match &relocation.symbol {
            Symbol::Named(name) if at_start == 0 => self.by_name.get(name).copied(),
            Symbol::FunctionCode { function, offset } if *offset as i64 + at_start == 0 => {
                Some(*function)
            }
            _ => None,
        }
    }

    /// The registers the call `instruction` of `function` may change.
    pub fn of_call(
        &self,
        model: &ObjectModel,
        places: &Places,
        function: usize,
        instruction: &Instruction,
    ) -> RegSet {
        if instruction.flow_control() != FlowControl::Call {
            return CALLER_SAVED;
        }
        match self.local_target(model, places, function, instruction) {
            Some(callee) => self.per_function[callee],
            None => CALLER_SAVED,
        }
    }
}
