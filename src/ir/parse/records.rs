//! Debug records: `#dbg_value(...)` and friends, and the `llvm.dbg.*`
//! calls that mean the same.
//!
//! In: the token cursor at a `#dbg_*` word, or after the callee name of a
//! `call void @llvm.dbg.*`. Out: a [`DebugRecord`]. Promises: both syntaxes
//! give the same record; a single-location expression is normalised to
//! start with `DW_OP_LLVM_arg 0` (ARCHITECTURE.md decision 2); an intrinsic
//! call without `!dbg` is an error.

use super::body::Scope;
use super::lexer::Tok;
use super::{PResult, Parser};
use crate::ir::debug::{AssignLink, DIExpression, DebugRecord, ExprId, ExprOp, MdId, RecordKind};
use crate::ir::module::Function;
use crate::ir::value::Value;

/// The location operands of a record as written.
struct RecordLocation {
    values: Vec<Value>,
    arg_list: bool,
}

impl<'a> Parser<'a> {
    /// `#dbg_value(...)` and friends, with the cursor at the `#dbg_` word.
    pub(super) fn parse_record(
        &mut self,
        word: &str,
        function: &Function,
        scope: &mut Scope<'a>,
    ) -> PResult<DebugRecord> {
        let offset = self.offset();
        self.bump();
        let kind = match word {
            "dbg_value" => RecordKind::Value,
            "dbg_declare" => RecordKind::Declare,
            "dbg_assign" => RecordKind::Assign,
            "dbg_label" => RecordKind::Label,
            _ => return Err(self.error_at(offset, format!("unknown debug record '#{word}'"))),
        };
        self.expect_punct(b'(')?;
        if kind == RecordKind::Label {
            let variable = self.parse_node_ref()?;
            self.expect_punct(b',')?;
            let loc = self.parse_location_ref()?;
            self.expect_punct(b')')?;
            let expr = self.module.debug.intern_expr(DIExpression::default());
            return Ok(DebugRecord {
                kind,
                variable,
                locations: Vec::new(),
                expr,
                loc,
                assign: None,
            });
        }
        let location = self.parse_record_location(function, scope)?;
        self.expect_punct(b',')?;
        let variable = self.parse_node_ref()?;
        self.expect_punct(b',')?;
        let expr = self.parse_record_expr(&location)?;
        self.expect_punct(b',')?;
        let assign = if kind == RecordKind::Assign {
            let id = self.parse_node_ref()?;
            self.expect_punct(b',')?;
            let (_, address) = self.parse_typed_value(function, scope)?;
            self.expect_punct(b',')?;
            let address_expr = self.parse_record_expr(&RecordLocation {
                values: Vec::new(),
                arg_list: false,
            })?;
            self.expect_punct(b',')?;
            Some(AssignLink {
                id,
                address,
                address_expr,
            })
        } else {
            None
        };
        let loc = self.parse_location_ref()?;
        self.expect_punct(b')')?;
        Ok(DebugRecord {
            kind,
            variable,
            locations: location.values,
            expr,
            loc,
            assign,
        })
    }

    /// `call void @llvm.dbg.KIND(metadata ..., ...)` after the callee name.
    pub(super) fn parse_dbg_intrinsic(
        &mut self,
        kind: &str,
        offset: u32,
        function: &Function,
        scope: &mut Scope<'a>,
    ) -> PResult<DebugRecord> {
        // `llvm.dbg.addr` (LLVM 14-15): the variable is in memory at the
        // address from here on. LLVM 16 upgrades it to a dbg.value of the
        // address with DW_OP_deref appended; so do we.
        let is_addr = kind == "addr";
        let kind = match kind {
            "value" | "addr" => RecordKind::Value,
            "declare" => RecordKind::Declare,
            "assign" => RecordKind::Assign,
            "label" => RecordKind::Label,
            _ => {
                return Err(
                    self.error_at(offset, format!("unknown debug intrinsic 'llvm.dbg.{kind}'"))
                )
            }
        };
        self.expect_punct(b'(')?;
        let record = if kind == RecordKind::Label {
            self.expect_word("metadata")?;
            let variable = self.parse_node_ref()?;
            let expr = self.module.debug.intern_expr(DIExpression::default());
            PartialRecord {
                kind,
                variable,
                locations: Vec::new(),
                expr,
                assign: None,
            }
        } else {
            self.expect_word("metadata")?;
            let location = self.parse_record_location(function, scope)?;
            self.expect_punct(b',')?;
            self.expect_word("metadata")?;
            let variable = self.parse_node_ref()?;
            self.expect_punct(b',')?;
            self.expect_word("metadata")?;
            let mut expr = self.parse_record_expr(&location)?;
            if is_addr {
                expr = self.append_deref(expr);
            }
            let assign = if kind == RecordKind::Assign {
                self.expect_punct(b',')?;
                self.expect_word("metadata")?;
                let id = self.parse_node_ref()?;
                self.expect_punct(b',')?;
                self.expect_word("metadata")?;
                let (_, address) = self.parse_typed_value(function, scope)?;
                self.expect_punct(b',')?;
                self.expect_word("metadata")?;
                let address_expr = self.parse_record_expr(&RecordLocation {
                    values: Vec::new(),
                    arg_list: false,
                })?;
                Some(AssignLink {
                    id,
                    address,
                    address_expr,
                })
            } else {
                None
            };
            PartialRecord {
                kind,
                variable,
                locations: location.values,
                expr,
                assign,
            }
        };
        self.expect_punct(b')')?;
        while matches!(self.peek(), Tok::AttrRef(_)) {
            self.bump();
        }
        let mut loc = None;
        while self.is_punct(b',') {
            self.bump();
            let Tok::MdName(name) = self.peek() else {
                return Err(self.expected("a metadata attachment"));
            };
            self.bump();
            if name == "dbg" {
                loc = Some(self.parse_location_ref()?);
            } else {
                self.parse_md_ref()?;
            }
        }
        let loc = loc
            .ok_or_else(|| self.error_at(offset, "debug intrinsic call without a !dbg location"))?;
        let PartialRecord {
            kind,
            variable,
            locations,
            expr,
            assign,
        } = record;
        Ok(DebugRecord {
            kind,
            variable,
            locations,
            expr,
            loc,
            assign,
        })
    }

    /// A record's location operand: `T v`, `!DIArgList(T v, ...)` or `!{}`.
    fn parse_record_location(
        &mut self,
        function: &Function,
        scope: &mut Scope<'a>,
    ) -> PResult<RecordLocation> {
        match self.peek() {
            Tok::MdName("DIArgList") => {
                self.bump();
                self.expect_punct(b'(')?;
                let mut values = Vec::new();
                if !self.eat(Tok::Punct(b')')) {
                    loop {
                        values.push(self.parse_typed_value(function, scope)?.1);
                        if self.eat(Tok::Punct(b')')) {
                            break;
                        }
                        self.expect_punct(b',')?;
                    }
                }
                Ok(RecordLocation {
                    values,
                    arg_list: true,
                })
            }
            Tok::Exclaim => {
                self.bump();
                self.expect_punct(b'{')?;
                self.expect_punct(b'}')?;
                Ok(RecordLocation {
                    values: Vec::new(),
                    arg_list: true,
                })
            }
            _ => {
                let (_, value) = self.parse_typed_value(function, scope)?;
                Ok(RecordLocation {
                    values: vec![value],
                    arg_list: false,
                })
            }
        }
    }

    /// A record's expression, normalised: a single-location expression
    /// without `DW_OP_LLVM_arg` gets `DW_OP_LLVM_arg 0` in front.
    fn parse_record_expr(&mut self, location: &RecordLocation) -> PResult<ExprId> {
        let id = self.parse_expression_ref()?;
        let expr = self.module.debug.expr(id);
        if location.arg_list || expr.uses_arg() {
            return Ok(id);
        }
        let mut ops = Vec::with_capacity(expr.ops.len() + 1);
        ops.push(ExprOp::Arg(0));
        ops.extend(expr.ops.iter().cloned());
        Ok(self.module.debug.intern_expr(DIExpression { ops }))
    }
}

impl Parser<'_> {
    /// `expr` with DW_OP_deref appended before any fragment, as LLVM's
    /// `DIExpression::append` places it.
    fn append_deref(&mut self, expr: ExprId) -> ExprId {
        let mut ops = self.module.debug.expr(expr).ops.clone();
        let at = match ops.last() {
            Some(ExprOp::Fragment { .. }) => ops.len() - 1,
            _ => ops.len(),
        };
        ops.insert(at, ExprOp::Deref);
        self.module.debug.intern_expr(DIExpression { ops })
    }
}

/// A record read from an intrinsic call before its `!dbg` is known.
struct PartialRecord {
    kind: RecordKind,
    variable: MdId,
    locations: Vec<Value>,
    expr: ExprId,
    assign: Option<AssignLink>,
}
