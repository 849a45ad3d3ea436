//! The normal form of an [`ObjectModel`]: what `read(write(m))` gives back.
//!
//! In: a model as code generation builds it.
//! Out: the same model with only those changes the writer makes on the way
//! out, so a round trip can be compared with `==`.
//!
//! Promises (each a thing the object file cannot tell apart):
//! - a location's arguments are numbered in order of first use, identical
//!   ones shared and unused ones dropped;
//! - `DerefSize(8)` is `Deref` (gimli reads both as one operation);
//! - a register that is a whole location or a whole piece (`DW_OP_regN`),
//!   or any register under lldb tuning (`DW_OP_bregN 0`), carries no width
//!   or signedness: it is 64-bit unsigned;
//! - location-list entries that are empty are dropped, equal adjacent ones
//!   merged, and a list left empty is no location;
//! - empty scope ranges are dropped.

use crate::model::{
    ChildScope, Location, LocationArg, LocationEntry, ObjectModel, Op, Scope, VariableLocation,
};
use crate::write::{DebuggerTune, WriteOptions};

/// The normal form of `model` written under `options` (see the module
/// comment).
pub fn normalise(model: &ObjectModel, options: &WriteOptions) -> ObjectModel {
    let mut model = model.clone();
    if let Some(debug) = &mut model.debug {
        for subprogram in &mut debug.subprograms {
            normalise_scope(&mut subprogram.scope, options);
        }
    }
    model
}

fn normalise_scope(scope: &mut Scope, options: &WriteOptions) {
    for variable in &mut scope.variables {
        variable.location = normalise_variable_location(&variable.location, options);
    }
    for child in &mut scope.children {
        let (ranges, scope) = match child {
            ChildScope::Lexical { ranges, scope } => (ranges, scope),
            ChildScope::Inlined { ranges, scope, .. } => (ranges, scope),
        };
        ranges.retain(|(start, end)| start < end);
        normalise_scope(scope, options);
    }
}

fn normalise_variable_location(
    location: &VariableLocation,
    options: &WriteOptions,
) -> VariableLocation {
    match location {
        VariableLocation::None => VariableLocation::None,
        VariableLocation::Single(location) => {
            VariableLocation::Single(normalise_location(location, options))
        }
        VariableLocation::List { function, entries } => {
            let mut merged: Vec<LocationEntry> = Vec::new();
            for entry in entries.iter().filter(|e| e.start < e.end) {
                let location = normalise_location(&entry.location, options);
                match merged.last_mut() {
                    Some(last) if last.end == entry.start && last.location == location => {
                        last.end = entry.end
                    }
                    _ => merged.push(LocationEntry {
                        start: entry.start,
                        end: entry.end,
                        location,
                    }),
                }
            }
            if merged.is_empty() {
                VariableLocation::None
            } else {
                VariableLocation::List {
                    function: *function,
                    entries: merged,
                }
            }
        }
    }
}

/// The normal form of one location expression.
pub(crate) fn normalise_location(location: &Location, options: &WriteOptions) -> Location {
    let untyped_registers = options.debugger_tune == DebuggerTune::Lldb;
    let mut args: Vec<LocationArg> = Vec::new();
    let mut ops: Vec<Op> = Vec::with_capacity(location.ops.len());
    for (index, op) in location.ops.iter().enumerate() {
        let op = match *op {
            Op::Arg(n) => {
                let Some(&arg) = location.args.get(n as usize) else {
                    // An argument that does not exist stays as it is, so
                    // the comparison shows it.
                    ops.push(Op::Arg(n));
                    continue;
                };
                let arg = if untyped_registers || is_whole_piece(&location.ops, index) {
                    bare_register(arg)
                } else {
                    arg
                };
                let position = match args.iter().position(|a| *a == arg) {
                    Some(position) => position,
                    None => {
                        args.push(arg);
                        args.len() - 1
                    }
                };
                Op::Arg(position as u32)
            }
            Op::DerefSize(8) => Op::Deref,
            other => other,
        };
        ops.push(op);
    }
    Location { args, ops }
}

/// Whether `ops[index]` is alone in its piece (or the whole expression).
fn is_whole_piece(ops: &[Op], index: usize) -> bool {
    let starts_piece = index == 0 || matches!(ops[index - 1], Op::Piece(_));
    let ends_piece = index + 1 == ops.len() || matches!(ops[index + 1], Op::Piece(_));
    starts_piece && ends_piece
}

/// A register argument as `DW_OP_regN` keeps it: no width or signedness.
fn bare_register(arg: LocationArg) -> LocationArg {
    match arg {
        LocationArg::Register { register, .. } => LocationArg::Register {
            register,
            bits: 64,
            signed: false,
        },
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn register(register: u16, bits: u16, signed: bool) -> LocationArg {
        LocationArg::Register {
            register,
            bits,
            signed,
        }
    }

    #[test]
    fn arguments_are_renumbered_shared_and_pruned() {
        let location = Location {
            args: vec![
                LocationArg::Constant(7),
                register(3, 32, true),
                LocationArg::FrameSlot(-8),
                register(3, 32, true),
            ],
            ops: vec![
                Op::Arg(3),
                Op::Arg(1),
                Op::Plus,
                Op::Arg(2),
                Op::Plus,
                Op::StackValue,
            ],
        };
        let expected = Location {
            args: vec![register(3, 32, true), LocationArg::FrameSlot(-8)],
            ops: vec![
                Op::Arg(0),
                Op::Arg(0),
                Op::Plus,
                Op::Arg(1),
                Op::Plus,
                Op::StackValue,
            ],
        };
        assert_eq!(
            normalise_location(&location, &WriteOptions::default()),
            expected
        );
    }

    #[test]
    fn whole_registers_lose_their_type_and_deref_size_8_is_deref() {
        let location = Location {
            args: vec![register(0, 32, true), register(1, 16, false)],
            ops: vec![
                Op::Arg(0),
                Op::Piece(4),
                Op::Arg(1),
                Op::DerefSize(8),
                Op::StackValue,
                Op::Piece(2),
            ],
        };
        let expected = Location {
            args: vec![register(0, 64, false), register(1, 16, false)],
            ops: vec![
                Op::Arg(0),
                Op::Piece(4),
                Op::Arg(1),
                Op::Deref,
                Op::StackValue,
                Op::Piece(2),
            ],
        };
        assert_eq!(
            normalise_location(&location, &WriteOptions::default()),
            expected
        );
    }

    #[test]
    fn lldb_tuning_drops_every_register_type() {
        let location = Location {
            args: vec![register(0, 32, true)],
            ops: vec![Op::Arg(0), Op::Constu(1), Op::Plus, Op::StackValue],
        };
        let lldb = WriteOptions {
            debugger_tune: DebuggerTune::Lldb,
        };
        assert_eq!(
            normalise_location(&location, &lldb).args,
            vec![register(0, 64, false)]
        );
        assert_eq!(
            normalise_location(&location, &WriteOptions::default()).args,
            vec![register(0, 32, true)]
        );
    }

    #[test]
    fn list_entries_merge_and_empty_lists_vanish() {
        let at = |register: u16| Location {
            args: vec![LocationArg::Register {
                register,
                bits: 64,
                signed: false,
            }],
            ops: vec![Op::Arg(0)],
        };
        let entry = |start, end, register| LocationEntry {
            start,
            end,
            location: at(register),
        };
        let list = VariableLocation::List {
            function: 1,
            entries: vec![
                entry(0, 4, 5),
                entry(4, 9, 5),
                entry(9, 9, 3),
                entry(9, 12, 5),
                entry(14, 20, 5),
            ],
        };
        assert_eq!(
            normalise_variable_location(&list, &WriteOptions::default()),
            VariableLocation::List {
                function: 1,
                entries: vec![entry(0, 12, 5), entry(14, 20, 5)],
            }
        );
        let empty = VariableLocation::List {
            function: 0,
            entries: vec![entry(3, 3, 1)],
        };
        assert_eq!(
            normalise_variable_location(&empty, &WriteOptions::default()),
            VariableLocation::None
        );
    }
}
