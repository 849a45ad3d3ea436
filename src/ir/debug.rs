//! Debug metadata and debug records.
//!
//! In: nothing (plain data). Out: [`DebugInfo`], the module's metadata
//! arenas, and [`DebugRecord`], the variable-location records that ride on
//! instructions.
//!
//! Promises (ARCHITECTURE.md decisions 2 and 3):
//! - Three arenas with small ids: [`LocId`] for DILocations, [`ExprId`] for
//!   DIExpressions, [`MdId`] for every other node (scopes, variables, types,
//!   files, tuples...). Equality is id equality: non-`distinct` locations
//!   and all expressions are interned, so equal contents give the same id.
//! - Every DIExpression a debug record uses names its locations with
//!   explicit [`ExprOp::Arg`]: a legacy single-location expression
//!   (`!DIExpression()`, `!DIExpression(DW_OP_plus_uconst, 4)`) is stored as
//!   `DW_OP_LLVM_arg 0, ...`; the printer shortens it again. Expressions
//!   outside records (DIGlobalVariableExpression) are stored as written.

use crate::ir::hash::FxHashMap;
use std::collections::BTreeSet;

pub use dwarfsmith_emit::model::Comparison;

use super::value::{Constant, Value};

/// Id of a DILocation in [`DebugInfo::locations`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct LocId(pub u32);

/// Id of a DIExpression in [`DebugInfo::exprs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ExprId(pub u32);

/// Id of any other metadata node in [`DebugInfo::nodes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MdId(pub u32);

/// What a numbered metadata reference `!N` resolves to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MdRef {
    /// A node in the general arena.
    Node(MdId),
    /// A DILocation.
    Location(LocId),
    /// A DIExpression.
    Expr(ExprId),
}

/// A source location: `!DILocation(line:, column:, scope:, inlinedAt:)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DILocation {
    /// 1-based line; 0 means "no line" (compiler-generated).
    pub line: u32,
    /// 1-based column; 0 when unknown.
    pub column: u32,
    /// The innermost scope (DISubprogram, DILexicalBlock, DILexicalBlockFile).
    pub scope: MdId,
    /// For inlined code: the call site's location.
    pub inlined_at: Option<LocId>,
    /// `isImplicitCode: true`.
    pub implicit_code: bool,
    /// Written `distinct`: never merged with an equal location.
    pub distinct: bool,
    /// Key Instructions (LLVM 21+) `atomGroup:`: instructions of a function
    /// with the same group and `inlined_at` make one source atom; 0: none.
    pub atom_group: u64,
    /// Key Instructions `atomRank:`: the is_stmt preference within the
    /// atom, 1 highest; 0 with no group.
    pub atom_rank: u8,
}

/// One operation of a DIExpression.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ExprOp {
    /// `DW_OP_LLVM_arg N`: push location operand N.
    Arg(u32),
    /// `DW_OP_constu N`.
    Constu(u64),
    /// `DW_OP_consts N`.
    Consts(i64),
    /// `DW_OP_litN` (N from 0 to 31).
    Lit(u8),
    /// `DW_OP_plus_uconst N`.
    PlusUconst(u64),
    /// `DW_OP_plus`.
    Plus,
    /// `DW_OP_minus`.
    Minus,
    /// `DW_OP_mul`.
    Mul,
    /// `DW_OP_div`.
    Div,
    /// `DW_OP_mod`.
    Mod,
    /// `DW_OP_and`.
    And,
    /// `DW_OP_or`.
    Or,
    /// `DW_OP_xor`.
    Xor,
    /// `DW_OP_shl`.
    Shl,
    /// `DW_OP_shr`.
    Shr,
    /// `DW_OP_shra`.
    Shra,
    /// `DW_OP_neg`.
    Neg,
    /// `DW_OP_not`.
    Not,
    /// `DW_OP_eq`, `DW_OP_ne`, `DW_OP_lt`, `DW_OP_gt`, `DW_OP_le`,
    /// `DW_OP_ge`. LLVM salvages an `icmp` as one, whatever the predicate's
    /// signedness: a signed predicate's constant operand is written
    /// `DW_OP_consts`, an unsigned one's `DW_OP_constu`.
    Compare(Comparison),
    /// `DW_OP_deref`.
    Deref,
    /// `DW_OP_deref_size N`.
    DerefSize(u8),
    /// `DW_OP_stack_value`.
    StackValue,
    /// `DW_OP_LLVM_convert bits, DW_ATE_signed|DW_ATE_unsigned`.
    Convert {
        /// Target width in bits.
        bits: u32,
        /// Whether the target encoding is `DW_ATE_signed`.
        signed: bool,
    },
    /// `DW_OP_LLVM_fragment offset, size` (in bits); always last.
    Fragment {
        /// Offset in bits from the start of the variable.
        offset: u64,
        /// Size in bits.
        size: u64,
    },
    /// `DW_OP_LLVM_entry_value N`.
    EntryValue(u64),
    /// Any other operation, kept by name with its integer arguments.
    Other {
        /// The operation's name as written (`DW_OP_swap`).
        name: String,
        /// Its arguments.
        args: Vec<u64>,
    },
}

/// `!DIExpression(...)`: a list of operations.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct DIExpression {
    /// The operations in order.
    pub ops: Vec<ExprOp>,
}

impl DIExpression {
    /// The fragment this expression describes, if it ends in one.
    pub fn fragment(&self) -> Option<(u64, u64)> {
        match self.ops.last() {
            Some(ExprOp::Fragment { offset, size }) => Some((*offset, *size)),
            _ => None,
        }
    }

    /// Whether the expression names any location with `DW_OP_LLVM_arg`.
    pub fn uses_arg(&self) -> bool {
        self.ops.iter().any(|op| matches!(op, ExprOp::Arg(_)))
    }
}

/// Which kind of debug record.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RecordKind {
    /// `#dbg_value` / `llvm.dbg.value`: the variable's value.
    Value,
    /// `#dbg_declare` / `llvm.dbg.declare`: the variable lives at an address.
    Declare,
    /// `#dbg_assign` / `llvm.dbg.assign`: assignment tracking.
    Assign,
    /// `#dbg_label` / `llvm.dbg.label`: a source label.
    Label,
}

/// The link of a `#dbg_assign` to its store and its address.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct AssignLink {
    /// The `!DIAssignID` shared with the store (or alloca) it describes.
    pub id: MdId,
    /// The address written to.
    pub address: Value,
    /// The address expression (normalised with `DW_OP_LLVM_arg 0`).
    pub address_expr: ExprId,
}

/// A debug record, attached to the instruction it precedes.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct DebugRecord {
    /// Which record.
    pub kind: RecordKind,
    /// The DILocalVariable (or, for [`RecordKind::Label`], the DILabel).
    pub variable: MdId,
    /// The location operands (a DIArgList; one element in the common case,
    /// none for a label). `undef`/`poison` mean "no location".
    pub locations: Vec<Value>,
    /// The expression over the locations, with explicit `DW_OP_LLVM_arg`
    /// (the empty expression for a label). The parser adds a leading
    /// `DW_OP_LLVM_arg 0` exactly when the text had one plain location (no
    /// `!DIArgList`) and an expression without `DW_OP_LLVM_arg`; the
    /// inverse for printing: one location and exactly one `Arg`, which is
    /// the first operation and is `Arg(0)` → print the location plainly and
    /// drop that operation; otherwise print a `!DIArgList`.
    pub expr: ExprId,
    /// The record's DILocation.
    pub loc: LocId,
    /// For [`RecordKind::Assign`]: the assign id, address and address expression.
    pub assign: Option<AssignLink>,
}

impl DebugRecord {
    /// The values the record reads (locations, then the assign address), mutable.
    pub fn values_mut(&mut self) -> impl Iterator<Item = &mut Value> {
        self.locations
            .iter_mut()
            .chain(self.assign.iter_mut().map(|a| &mut a.address))
    }

    /// The values the record reads (locations, then the assign address).
    pub fn values(&self) -> impl Iterator<Item = &Value> {
        self.locations
            .iter()
            .chain(self.assign.iter().map(|a| &a.address))
    }
}

/// A field value of a metadata node that the model keeps verbatim.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MdField {
    /// An integer (`line: 3`, `count: -1`).
    Int(i128),
    /// A string (`name: "x"`).
    Str(String),
    /// A reference (`scope: !11`), or `null`.
    Ref(Option<MdRef>),
    /// A named constant (`DW_TAG_member`, `CSK_MD5`, `FullDebug`).
    Name(String),
    /// Flags joined by `|` (`DIFlagPrototyped | DIFlagAllCallsDescribed`).
    Flags(Vec<String>),
    /// `true` / `false`.
    Bool(bool),
    /// An inline node such as `!DIExpression(...)` kept by reference.
    Inline(MdRef),
    /// A typed constant (`extraData: i64 0` of a bitfield member).
    Value(super::value::Constant),
}

/// Fields of a specialised node that the model does not name, kept in order.
pub type OtherFields = Vec<(String, MdField)>;

/// An operand of a generic tuple `!{...}`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum MdOperand {
    /// `!N` or an inline node.
    Ref(MdRef),
    /// `null`.
    Null,
    /// `!"text"`.
    Str(String),
    /// `ty value` (e.g. `i32 7`, `ptr @g`).
    Value(Constant),
}

/// `!DICompileUnit(...)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DICompileUnit {
    /// `language: DW_LANG_C11`.
    pub language: String,
    /// `file:`.
    pub file: Option<MdId>,
    /// `producer:`.
    pub producer: Option<String>,
    /// `isOptimized:`.
    pub is_optimized: bool,
    /// `emissionKind: FullDebug`.
    pub emission_kind: Option<String>,
    /// `enums:` tuple.
    pub enums: Option<MdId>,
    /// `retainedTypes:` tuple.
    pub retained_types: Option<MdId>,
    /// `globals:` tuple of DIGlobalVariableExpressions.
    pub globals: Option<MdId>,
    /// Everything else, in order (`runtimeVersion`, `nameTableKind`...).
    pub other: OtherFields,
}

/// `!DIFile(...)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DIFile {
    /// `filename:`.
    pub filename: String,
    /// `directory:`.
    pub directory: String,
    /// `checksumkind:` and `checksum:` (e.g. `CSK_MD5`, hex digits).
    pub checksum: Option<(String, String)>,
    /// `source:`, if embedded.
    pub source: Option<String>,
}

/// `!DISubprogram(...)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DISubprogram {
    /// `name:`.
    pub name: String,
    /// `linkageName:`.
    pub linkage_name: Option<String>,
    /// `scope:` (file, compile unit, type).
    pub scope: Option<MdId>,
    /// `file:`.
    pub file: Option<MdId>,
    /// `line:`.
    pub line: u32,
    /// `type:` (a DISubroutineType).
    pub ty: Option<MdId>,
    /// `scopeLine:`.
    pub scope_line: u32,
    /// `flags:` (`DIFlagPrototyped`...).
    pub flags: Vec<String>,
    /// `spFlags:` (`DISPFlagDefinition`, `DISPFlagOptimized`, `DISPFlagLocalToUnit`).
    pub sp_flags: Vec<String>,
    /// `unit:` (definitions only).
    pub unit: Option<MdId>,
    /// `retainedNodes:` tuple.
    pub retained_nodes: Option<MdId>,
    /// `declaration:`.
    pub declaration: Option<MdId>,
    /// Everything else, in order.
    pub other: OtherFields,
}

impl DISubprogram {
    /// Whether `keyInstructions: true` (LLVM 21+): is_stmt follows the
    /// Key Instructions metadata (`atomGroup`, `atomRank`) of its code.
    pub fn key_instructions(&self) -> bool {
        self.other
            .iter()
            .any(|(name, value)| name == "keyInstructions" && *value == MdField::Bool(true))
    }

    /// Whether `spFlags` has `DISPFlagDefinition`.
    pub fn is_definition(&self) -> bool {
        self.sp_flags.iter().any(|f| f == "DISPFlagDefinition")
    }

    /// Whether `spFlags` has `DISPFlagLocalToUnit` (a `static` function).
    pub fn is_local(&self) -> bool {
        self.sp_flags.iter().any(|f| f == "DISPFlagLocalToUnit")
    }
}

/// `!DILexicalBlock(scope:, file:, line:, column:)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DILexicalBlock {
    /// `scope:`.
    pub scope: MdId,
    /// `file:`.
    pub file: Option<MdId>,
    /// `line:`.
    pub line: u32,
    /// `column:`.
    pub column: u32,
}

/// `!DILexicalBlockFile(scope:, file:, discriminator:)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DILexicalBlockFile {
    /// `scope:`.
    pub scope: MdId,
    /// `file:`.
    pub file: Option<MdId>,
    /// `discriminator:`.
    pub discriminator: u32,
}

/// `!DILocalVariable(...)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DILocalVariable {
    /// `name:`.
    pub name: String,
    /// `arg:` (1-based parameter number), `None` for a local.
    pub arg: Option<u32>,
    /// `scope:`.
    pub scope: MdId,
    /// `file:`.
    pub file: Option<MdId>,
    /// `line:`.
    pub line: u32,
    /// `type:`.
    pub ty: Option<MdId>,
    /// `flags:` (`DIFlagArtificial`...).
    pub flags: Vec<String>,
    /// `align:` in bits.
    pub align: Option<u32>,
}

/// `!DILabel(scope:, name:, file:, line:)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DILabel {
    /// `scope:`.
    pub scope: MdId,
    /// `name:`.
    pub name: String,
    /// `file:`.
    pub file: Option<MdId>,
    /// `line:`.
    pub line: u32,
}

/// `!DIBasicType(...)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DIBasicType {
    /// `tag:` (`DW_TAG_base_type` when not written).
    pub tag: Option<String>,
    /// `name:`.
    pub name: String,
    /// `size:` in bits.
    pub size: u64,
    /// `align:` in bits.
    pub align: Option<u64>,
    /// `encoding:` (`DW_ATE_signed`...).
    pub encoding: Option<String>,
    /// `flags:`.
    pub flags: Vec<String>,
}

/// `!DIDerivedType(...)`: pointers, const/volatile, typedefs, members.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DIDerivedType {
    /// `tag:` (`DW_TAG_pointer_type`, `DW_TAG_member`, `DW_TAG_typedef`...).
    pub tag: String,
    /// `name:`.
    pub name: Option<String>,
    /// `scope:`.
    pub scope: Option<MdId>,
    /// `file:`.
    pub file: Option<MdId>,
    /// `line:`.
    pub line: u32,
    /// `baseType:` (`None` for `void *`).
    pub base_type: Option<MdId>,
    /// `size:` in bits.
    pub size: u64,
    /// `align:` in bits.
    pub align: Option<u64>,
    /// `offset:` in bits (members).
    pub offset: u64,
    /// `flags:`.
    pub flags: Vec<String>,
    /// Everything else, in order (`extraData`, `dwarfAddressSpace`...).
    pub other: OtherFields,
}

/// `!DICompositeType(...)`: structs, unions, arrays, enums.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DICompositeType {
    /// `tag:` (`DW_TAG_structure_type`, `DW_TAG_array_type`...).
    pub tag: String,
    /// `name:`.
    pub name: Option<String>,
    /// `scope:`.
    pub scope: Option<MdId>,
    /// `file:`.
    pub file: Option<MdId>,
    /// `line:`.
    pub line: u32,
    /// `baseType:` (array element, enum underlying type).
    pub base_type: Option<MdId>,
    /// `size:` in bits.
    pub size: u64,
    /// `align:` in bits.
    pub align: Option<u64>,
    /// `flags:`.
    pub flags: Vec<String>,
    /// `elements:` tuple (members, subranges, enumerators).
    pub elements: Option<MdId>,
    /// `identifier:`.
    pub identifier: Option<String>,
    /// Everything else, in order.
    pub other: OtherFields,
}

/// `!DISubroutineType(types: !N)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DISubroutineType {
    /// `flags:`.
    pub flags: Vec<String>,
    /// `cc:` calling convention, if written.
    pub cc: Option<String>,
    /// `types:` tuple: return type first (null for void), then parameters.
    pub types: Option<MdId>,
}

/// `!DISubrange(count:, lowerBound:)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DISubrange {
    /// `count:` as written (an integer, or a reference to a variable).
    pub count: Option<MdField>,
    /// Everything else, in order (`lowerBound`, `upperBound`, `stride`).
    pub other: OtherFields,
}

/// `!DIEnumerator(name:, value:, isUnsigned:)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DIEnumerator {
    /// `name:`.
    pub name: String,
    /// `value:`.
    pub value: i128,
    /// `isUnsigned: true`.
    pub is_unsigned: bool,
}

/// `!DIGlobalVariable(...)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DIGlobalVariable {
    /// `name:`.
    pub name: String,
    /// `linkageName:`.
    pub linkage_name: Option<String>,
    /// `scope:`.
    pub scope: Option<MdId>,
    /// `file:`.
    pub file: Option<MdId>,
    /// `line:`.
    pub line: u32,
    /// `type:`.
    pub ty: Option<MdId>,
    /// `isLocal:`.
    pub is_local: bool,
    /// `isDefinition:`.
    pub is_definition: bool,
    /// Everything else, in order.
    pub other: OtherFields,
}

/// `!DIGlobalVariableExpression(var:, expr:)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DIGlobalVariableExpression {
    /// `var:` (a DIGlobalVariable).
    pub var: MdId,
    /// `expr:` (as written; not normalised).
    pub expr: ExprId,
}

/// A metadata node other than a location or an expression.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MdNode {
    /// A compile unit.
    CompileUnit(DICompileUnit),
    /// A source file.
    File(DIFile),
    /// A function.
    Subprogram(DISubprogram),
    /// A `{ }` block scope.
    LexicalBlock(DILexicalBlock),
    /// A scope switching file.
    LexicalBlockFile(DILexicalBlockFile),
    /// A local variable or parameter.
    LocalVariable(DILocalVariable),
    /// A source label.
    Label(DILabel),
    /// A base type.
    BasicType(DIBasicType),
    /// A derived type or member.
    DerivedType(DIDerivedType),
    /// A composite type.
    CompositeType(DICompositeType),
    /// A function type.
    SubroutineType(DISubroutineType),
    /// An array dimension.
    Subrange(DISubrange),
    /// An enumeration constant.
    Enumerator(DIEnumerator),
    /// A global variable.
    GlobalVariable(DIGlobalVariable),
    /// A global variable with its location expression.
    GlobalVariableExpression(DIGlobalVariableExpression),
    /// `distinct !DIAssignID()`: links stores to `#dbg_assign` records.
    AssignId,
    /// A plain tuple `!{...}` (type lists, retained nodes, module flags, TBAA...).
    Tuple(Vec<MdOperand>),
    /// A specialised node the model does not know (`!DINamespace(...)`), kept
    /// by kind and fields.
    Other {
        /// The node kind without `!` (`DINamespace`).
        kind: String,
        /// Its fields in order.
        fields: OtherFields,
    },
}

/// A node with its `distinct` marker.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MdEntry {
    /// Whether the node was written `distinct`.
    pub distinct: bool,
    /// The node.
    pub node: MdNode,
}

/// The module's metadata arenas.
#[derive(Clone, Debug, Default)]
pub struct DebugInfo {
    /// Every node other than locations and expressions, by [`MdId`].
    pub nodes: Vec<MdEntry>,
    /// Every location, by [`LocId`].
    pub locations: Vec<DILocation>,
    /// Every expression, by [`ExprId`].
    pub exprs: Vec<DIExpression>,
    /// Locations of code the source-order decision found out of order for
    /// its block (hoisted, sunk, speculated): the line stays, is_stmt never
    /// (see `source_order`). Each is a `distinct` copy of the location the
    /// code had in the source.
    pub out_of_order: BTreeSet<LocId>,
    location_index: FxHashMap<DILocation, LocId>,
    expr_index: FxHashMap<DIExpression, ExprId>,
}

impl DebugInfo {
    /// Adds a node and returns its id (nodes are not interned).
    pub fn add_node(&mut self, distinct: bool, node: MdNode) -> MdId {
        let id = MdId(self.nodes.len() as u32);
        self.nodes.push(MdEntry { distinct, node });
        id
    }

    /// The node with this id.
    pub fn node(&self, id: MdId) -> &MdNode {
        &self.nodes[id.0 as usize].node
    }

    /// The node with this id, for changing it in place.
    pub fn node_mut(&mut self, id: MdId) -> &mut MdNode {
        &mut self.nodes[id.0 as usize].node
    }

    /// The location of code moved out of its statement's order (see
    /// [`DebugInfo::out_of_order`]): a `distinct` copy of `loc`, listed
    /// there; `loc` itself when it is listed already or has line 0.
    pub fn out_of_order_copy(&mut self, loc: LocId) -> LocId {
        if self.out_of_order.contains(&loc) || self.location(loc).line == 0 {
            return loc;
        }
        let copy = DILocation {
            distinct: true,
            ..self.location(loc).clone()
        };
        let copy = self.intern_location(copy);
        self.out_of_order.insert(copy);
        copy
    }

    /// Returns the id of an equal location, adding it if there is none.
    /// A `distinct` location always gets a new id.
    pub fn intern_location(&mut self, location: DILocation) -> LocId {
        if !location.distinct {
            if let Some(&id) = self.location_index.get(&location) {
                return id;
            }
        }
        let id = LocId(self.locations.len() as u32);
        if !location.distinct {
            self.location_index.insert(location.clone(), id);
        }
        self.locations.push(location);
        id
    }

    /// The location with this id.
    pub fn location(&self, id: LocId) -> &DILocation {
        &self.locations[id.0 as usize]
    }

    /// Returns the id of an equal expression, adding it if there is none.
    pub fn intern_expr(&mut self, expr: DIExpression) -> ExprId {
        if let Some(&id) = self.expr_index.get(&expr) {
            return id;
        }
        let id = ExprId(self.exprs.len() as u32);
        self.expr_index.insert(expr.clone(), id);
        self.exprs.push(expr);
        id
    }

    /// The expression with this id.
    pub fn expr(&self, id: ExprId) -> &DIExpression {
        &self.exprs[id.0 as usize]
    }

    /// The local variable with this id, if the node is one.
    pub fn variable(&self, id: MdId) -> Option<&DILocalVariable> {
        match self.node(id) {
            MdNode::LocalVariable(v) => Some(v),
            _ => None,
        }
    }

    /// The subprogram with this id, if the node is one.
    pub fn subprogram(&self, id: MdId) -> Option<&DISubprogram> {
        match self.node(id) {
            MdNode::Subprogram(s) => Some(s),
            _ => None,
        }
    }

    /// The file with this id, if the node is one.
    pub fn file(&self, id: MdId) -> Option<&DIFile> {
        match self.node(id) {
            MdNode::File(f) => Some(f),
            _ => None,
        }
    }

    /// The operands of a tuple node (empty if the node is not a tuple).
    pub fn tuple(&self, id: MdId) -> &[MdOperand] {
        match self.node(id) {
            MdNode::Tuple(ops) => ops,
            _ => &[],
        }
    }

    /// The enclosing scope of a local scope (lexical block → its parent),
    /// `None` for a subprogram or a non-scope.
    pub fn parent_scope(&self, scope: MdId) -> Option<MdId> {
        match self.node(scope) {
            MdNode::LexicalBlock(b) => Some(b.scope),
            MdNode::LexicalBlockFile(b) => Some(b.scope),
            _ => None,
        }
    }

    /// The subprogram a local scope belongs to (walking lexical blocks up).
    pub fn scope_subprogram(&self, mut scope: MdId) -> Option<MdId> {
        // Scopes form a tree; the bound guards against a malformed cycle.
        for _ in 0..=self.nodes.len() {
            match self.node(scope) {
                MdNode::Subprogram(_) => return Some(scope),
                _ => scope = self.parent_scope(scope)?,
            }
        }
        None
    }
}
