//! The object model: everything dwarfsmith puts in a relocatable object, in
//! DWARF and ELF terms, and nothing of the IR it came from.
//!
//! Code generation fills an [`ObjectModel`]; `write` turns it into ELF bytes;
//! `read` turns ELF bytes back into an `ObjectModel`. The round-trip promise:
//! `read(write(m)) == normalise(m)`, where normalisation only does what the
//! writer does on the way out (merging equal adjacent location entries,
//! lowering `DW_OP_LLVM_*` placeholders), so the model is kept in the
//! normalised shape wherever that costs nothing.
//!
//! Addresses inside a function are byte offsets from the function's first
//! byte; the writer turns them into relocated addresses.

/// A whole relocatable object: code, data, and (optionally) debug info.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjectModel {
    /// Functions, laid out one after another in `.text` in this order (or
    /// in sections of their own: [`Function::section_name`], [`Function::comdat`]).
    pub functions: Vec<Function>,
    /// Global data objects (`.data`, `.rodata`, `.bss`).
    pub data: Vec<DataObject>,
    /// DWARF for the compile unit; `None` for an object built with `-g0`.
    pub debug: Option<DebugInfo>,
    /// Names referred to but not defined here that bind weakly (LLVM
    /// `extern_weak`): undefined STB_WEAK symbols, which resolve to 0 when
    /// nothing defines them.
    pub weak_references: Vec<String>,
    /// The LSDAs (`.gcc_except_table`) of the functions with landing pads.
    pub exception_tables: Vec<ExceptionTable>,
}

/// One function's language-specific data area for an Itanium C++
/// personality (`.gcc_except_table`), in the terms llc-19 writes it: a
/// call-site table (uleb128), an action table, a type table of indirect
/// pc-relative 4-byte pointers and the exception specifications. Its FDE
/// points at it, and its CIE names the personality through
/// `personality_reference`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExceptionTable {
    /// Index of the function in [`ObjectModel::functions`].
    pub function: usize,
    /// The data object holding the personality routine's address (llc's
    /// hidden weak `DW.ref.__gxx_personality_v0`), which the CIE points to.
    pub personality_reference: String,
    /// The call sites in address order.
    pub call_sites: Vec<ExceptionCallSite>,
    /// The action records in order: each a type filter and the
    /// displacement of the next record (0: none), both sleb128.
    pub actions: Vec<ExceptionAction>,
    /// The data objects holding each type info's address, by type id
    /// (id `n` at index `n - 1`; `None`: the catch-all, written as 0).
    pub type_infos: Vec<Option<String>>,
    /// The exception specifications: type ids, each list ended by 0.
    pub filter_ids: Vec<u32>,
}

/// One entry of an LSDA's call-site table: code offsets in the function.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExceptionCallSite {
    /// Offset of the first byte covered.
    pub start: u64,
    /// Bytes covered.
    pub length: u64,
    /// Offset of the landing pad (`None`: an exception here unwinds on).
    pub landing_pad: Option<u64>,
    /// 1 + the offset of the first action record (0: cleanup only, or none).
    pub action: u64,
}

/// One record of an action table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExceptionAction {
    /// The type filter: a type id (catch), a negative offset into the
    /// exception specifications (filter), or 0 (cleanup).
    pub filter: i64,
    /// The displacement from this field to the next record (0: the last).
    pub next: i64,
}

/// One function's machine code with what the linker and unwinder need.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Function {
    /// Symbol name.
    pub name: String,
    /// `true` for STB_GLOBAL, `false` for STB_LOCAL (LLVM `internal`/`private`).
    pub global: bool,
    /// Weak binding and visibility of the symbol.
    pub binding: SymbolBinding,
    /// Encoded x86-64 machine code.
    pub code: Vec<u8>,
    /// The alignment the code needs beyond the writer's 16 bytes (a power
    /// of two: inline asm `.p2align` in it pads from the function's start);
    /// 0 for none. An object read back gives 0.
    pub align: u64,
    /// Relocations against `code`.
    pub relocations: Vec<Relocation>,
    /// Call-frame instructions, in address order, for `.eh_frame` and
    /// `.debug_frame`. The CIE's initial rules are the SysV x86-64 ones:
    /// CFA = rsp + 8, return address at CFA - 8.
    pub cfi: Vec<CfiRow>,
    /// Read-only data owned by this function (jump tables), placed in
    /// `.rodata` (8-byte aligned) and referred to by relocations against
    /// [`Symbol::FunctionData`].
    pub rodata: Vec<u8>,
    /// Relocations against `rodata` (jump-table entries).
    pub rodata_relocations: Vec<Relocation>,
    /// Constants of 4, 8 or 16 bytes (floating-point and vector literals),
    /// each placed, as llc places its constant pool, in the mergeable
    /// section of its size (`.rodata.cst4`, `.rodata.cst8`, `.rodata.cst16`:
    /// SHF_MERGE, entry size = alignment = size) under a local label of its
    /// own, and referred to by relocations against [`Symbol::Literal`].
    pub literals: Vec<Vec<u8>>,
    /// An explicit section for the code (LLVM `section "name"`) instead of
    /// `.text`; functions naming one section share it, except those in a
    /// COMDAT group.
    pub section_name: Option<String>,
    /// The COMDAT group the code belongs to, by signature name: the code
    /// then gets a section of its own (the explicit name, else
    /// `.text.NAME`) in that group, as llc places it.
    pub comdat: Option<String>,
    /// Further symbols for this code (LLVM aliases of the function).
    pub aliases: Vec<Alias>,
}

/// A further symbol at an address inside a function or data object (LLVM
/// `@a = alias T, ptr @f`, possibly at an offset: `getelementptr`). Its
/// `st_size` is the whole object's, as the assembler's `.set` gives it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Alias {
    /// Symbol name.
    pub name: String,
    /// `true` for STB_GLOBAL, `false` for STB_LOCAL.
    pub global: bool,
    /// Weak binding and visibility of the symbol.
    pub binding: SymbolBinding,
    /// Byte offset from the start of the function or data object.
    pub offset: u64,
}

/// What a relocation refers to.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Symbol {
    /// A named symbol: a function or data object of this module, or an
    /// undefined external one.
    Named(String),
    /// The start of function number `n`'s own `rodata` (jump tables).
    FunctionData(usize),
    /// Literal number `index` of function number `function`
    /// ([`Function::literals`]).
    Literal {
        /// Index into [`ObjectModel::functions`].
        function: usize,
        /// Index into that function's literals.
        index: usize,
    },
    /// Offset `n` into function `f`'s code (a jump-table target).
    FunctionCode {
        /// Index into [`ObjectModel::functions`].
        function: usize,
        /// Byte offset in that function's code.
        offset: u64,
    },
}

/// The relocation kinds dwarfsmith emits.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum RelocationKind {
    /// R_X86_64_PC32: 32-bit PC-relative (RIP-relative data, local jumps).
    Pc32,
    /// R_X86_64_PLT32: 32-bit PC-relative call through the PLT.
    Plt32,
    /// R_X86_64_PC64: 64-bit PC-relative (data: a symbol's distance from
    /// the field, as profile data records its counters').
    Pc64,
    /// R_X86_64_REX_GOTPCRELX: RIP-relative load of a GOT entry (external data).
    GotPcRelX,
    /// R_X86_64_64: absolute 64-bit address.
    Abs64,
    /// R_X86_64_TLSGD: RIP-relative GOT entry pair of a thread-local
    /// symbol (general dynamic: `data16 lea rdi, [rip + x@TLSGD]`).
    TlsGd,
    /// R_X86_64_TLSLD: RIP-relative GOT entry pair of the module's TLS
    /// block (local dynamic: `lea rdi, [rip + x@TLSLD]`).
    TlsLd,
    /// R_X86_64_DTPOFF32: a thread-local symbol's offset in its module's
    /// TLS block (local dynamic, after `__tls_get_addr`).
    DtpOff32,
    /// R_X86_64_GOTTPOFF: RIP-relative GOT entry holding a thread-local
    /// symbol's offset from the thread pointer (initial exec).
    GotTpOff,
    /// R_X86_64_TPOFF32: a thread-local symbol's offset from the thread
    /// pointer (local exec).
    TpOff32,
}

impl RelocationKind {
    /// Whether the relocation names a thread-local symbol (so an undefined
    /// symbol it names is STT_TLS).
    pub fn is_thread_local(self) -> bool {
        matches!(
            self,
            RelocationKind::TlsGd
                | RelocationKind::TlsLd
                | RelocationKind::DtpOff32
                | RelocationKind::GotTpOff
                | RelocationKind::TpOff32
        )
    }

    /// Whether the field holds a value relative to its own address (the
    /// addend of a field in code then accounts for the instruction's end).
    pub fn is_pc_relative(self) -> bool {
        matches!(
            self,
            RelocationKind::Pc32
                | RelocationKind::Pc64
                | RelocationKind::Plt32
                | RelocationKind::GotPcRelX
                | RelocationKind::TlsGd
                | RelocationKind::TlsLd
                | RelocationKind::GotTpOff
        )
    }
}

/// One relocation: patch `offset` with the address of `symbol` + `addend`
/// (minus the address of the field for the PC-relative kinds). For
/// [`Symbol::FunctionData`] and [`Symbol::FunctionCode`] the writer relocates
/// against the `.rodata`/`.text` section symbol and adds the position to
/// the addend; a jump-table entry `target - table` at byte `4k` of the
/// table is `Pc32` against `FunctionCode` with addend `4k`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Relocation {
    /// Byte offset of the field being patched.
    pub offset: u64,
    /// How the field is computed.
    pub kind: RelocationKind,
    /// What it refers to.
    pub symbol: Symbol,
    /// The addend (for PC-relative kinds usually -4).
    pub addend: i64,
}

/// One call-frame instruction taking effect at `offset` in the function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CfiRow {
    /// Byte offset in the function's code where the rule takes effect
    /// (just after the instruction that changed the frame).
    pub offset: u64,
    /// The rule.
    pub instruction: CfiInstruction,
}

/// A call-frame rule change, in DWARF register numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CfiInstruction {
    /// DW_CFA_def_cfa_offset: CFA = current CFA register + offset.
    DefCfaOffset(u32),
    /// DW_CFA_def_cfa_register: CFA = register + current offset.
    DefCfaRegister(u16),
    /// DW_CFA_def_cfa: CFA = register + offset.
    DefCfa {
        /// DWARF register number.
        register: u16,
        /// Offset from it.
        offset: u32,
    },
    /// DW_CFA_offset: register saved at CFA + offset (offset negative).
    Offset {
        /// DWARF register number.
        register: u16,
        /// Byte offset from the CFA.
        offset: i32,
    },
    /// DW_CFA_restore: register back to its initial rule.
    Restore(u16),
    /// DW_CFA_remember_state.
    RememberState,
    /// DW_CFA_restore_state.
    RestoreState,
}

/// How a symbol is bound and seen beyond its object (beside global/local).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SymbolBinding {
    /// STB_WEAK instead of STB_GLOBAL (LLVM `weak`, `weak_odr`,
    /// `linkonce_odr`, `extern_weak`).
    pub weak: bool,
    /// ELF visibility (`st_other`).
    pub visibility: Visibility,
}

/// ELF symbol visibility.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Visibility {
    /// STV_DEFAULT.
    #[default]
    Default,
    /// STV_INTERNAL.
    Internal,
    /// STV_HIDDEN.
    Hidden,
    /// STV_PROTECTED.
    Protected,
}

/// Which section a data object goes into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DataSection {
    /// Writable, initialised.
    Data,
    /// Read-only.
    ReadOnly,
    /// A read-only NUL-terminated string of bytes the linker may merge
    /// with equal ones (`.rodata.str1.1`: SHF_MERGE | SHF_STRINGS, entry
    /// size 1); byte aligned, no relocations.
    Strings,
    /// Zero-initialised, writable.
    Bss,
    /// A common symbol (SHN_COMMON, LLVM `common` linkage): the linker
    /// allocates it, merged with other objects' commons of its name; its
    /// value is its alignment.
    Common,
    /// Thread-local, initialised (`.tdata`, SHF_TLS; its symbol STT_TLS).
    ThreadLocal,
    /// Thread-local, zero-initialised (`.tbss`, SHF_TLS, SHT_NOBITS).
    ThreadLocalBss,
}

impl DataSection {
    /// Whether the object occupies no file space (SHT_NOBITS).
    pub fn is_bss(self) -> bool {
        matches!(
            self,
            DataSection::Bss | DataSection::ThreadLocalBss | DataSection::Common
        )
    }

    /// Whether the object is thread-local.
    pub fn is_thread_local(self) -> bool {
        matches!(self, DataSection::ThreadLocal | DataSection::ThreadLocalBss)
    }
}

/// A global variable or constant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataObject {
    /// Symbol name.
    pub name: String,
    /// `true` for STB_GLOBAL.
    pub global: bool,
    /// Weak binding and visibility of the symbol.
    pub binding: SymbolBinding,
    /// Section kind.
    pub section: DataSection,
    /// An explicit section name (LLVM `section "name"`, `.init_array.N`)
    /// instead of the standard one of [`DataObject::section`]; the section
    /// type follows the name (`.init_array*`, `.fini_array*` get
    /// SHT_INIT_ARRAY/SHT_FINI_ARRAY, `.bss*` SHT_NOBITS).
    pub section_name: Option<String>,
    /// Alignment in bytes (a power of two).
    pub align: u64,
    /// Contents (for `Bss`, zeros of the right length).
    pub bytes: Vec<u8>,
    /// Relocations against `bytes` (pointers to other symbols).
    pub relocations: Vec<Relocation>,
    /// The COMDAT group the object belongs to, by signature name: it then
    /// gets a section of its own (the explicit name, else its standard
    /// section's name with `.NAME` appended) in that group, as llc places it.
    pub comdat: Option<String>,
    /// Further symbols for this object (LLVM aliases of the global).
    pub aliases: Vec<Alias>,
}

/// DWARF 5 content for the one compile unit of the object.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DebugInfo {
    /// DW_AT_producer.
    pub producer: String,
    /// DW_AT_language (a DW_LANG_* value).
    pub language: u16,
    /// DW_AT_name of the unit (the primary source file).
    pub name: String,
    /// DW_AT_comp_dir.
    pub comp_dir: String,
    /// Line-table file entries; index 0 is the primary source file. Entries
    /// equal in name and directory share one line-table entry when written.
    pub files: Vec<SourceFile>,
    /// Types, referred to by index ([`TypeId`]).
    pub types: Vec<Type>,
    /// Subprograms (defined functions and abstract origins of inlined ones).
    pub subprograms: Vec<Subprogram>,
    /// Line rows per function: `line_rows[i]` belongs to `functions[i]`,
    /// in address order.
    pub line_rows: Vec<Vec<LineRow>>,
    /// Global variables (DIGlobalVariable), children of the compile unit.
    pub globals: Vec<GlobalVariable>,
    /// C++ `using` declarations and directives (DIImportedEntity of the
    /// unit's `imports:`), written after everything else as LLVM does.
    pub imports: Vec<Import>,
}

/// A DW_TAG_imported_declaration (`using ns::name;`) or
/// DW_TAG_imported_module (`using namespace ns;`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Import {
    /// DW_TAG_imported_module rather than DW_TAG_imported_declaration.
    pub module: bool,
    /// The namespace whose DIE holds it (`None`: the unit).
    pub context: Option<TypeId>,
    /// File index of the `using`.
    pub file: u32,
    /// Its line.
    pub line: u32,
    /// A new name for the entity (`namespace a = b;`), if any.
    pub name: Option<String>,
    /// What is imported (DW_AT_import).
    pub entity: ImportedEntity,
}

/// The DIE an import names.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ImportedEntity {
    /// A type or namespace.
    Type(TypeId),
    /// A function (its declaration or definition DIE).
    Subprogram(SubprogramId),
    /// A global variable, by index into [`DebugInfo::globals`].
    Global(usize),
    /// Another import, by index into [`DebugInfo::imports`].
    Import(usize),
}

/// A source-level global variable: a DW_TAG_variable child of the unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GlobalVariable {
    /// Source name.
    pub name: String,
    /// Linkage name, when it differs from `name`.
    pub linkage_name: Option<String>,
    /// Type.
    pub ty: Option<TypeId>,
    /// File index of the declaration.
    pub file: u32,
    /// Line of the declaration.
    pub line: u32,
    /// DW_AT_external (LLVM `isLocal: false`).
    pub external: bool,
    /// The namespace or class whose DIE holds it (`None`: the unit), as
    /// LLVM places a global variable in its scope.
    pub context: Option<TypeId>,
    /// A function's static: the subprogram whose DIE holds it (before
    /// `context`), so a debugger finds it among that function's locals.
    pub function: Option<SubprogramId>,
    /// The definition of a static data member: the class and the index of
    /// the member among its `members`. The DIE then names the member's
    /// declaration (DW_AT_specification) instead of its name, type,
    /// position and DW_AT_external, as LLVM writes it.
    pub specification: Option<(TypeId, usize)>,
    /// Index into [`ObjectModel::data`] of the object holding the value
    /// (location `DW_OP_addr` of its symbol); `None`: optimised out, no
    /// location.
    pub data: Option<usize>,
}

/// A file of the line table.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// File name as in DIFile.
    pub name: String,
    /// Directory as in DIFile.
    pub directory: String,
    /// MD5 checksum, when the IR has one.
    pub md5: Option<[u8; 16]>,
}

/// One row of the line table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineRow {
    /// Byte offset in the function.
    pub offset: u64,
    /// Index into [`DebugInfo::files`].
    pub file: u32,
    /// Source line (0: no source line).
    pub line: u32,
    /// Source column.
    pub column: u32,
    /// A recommended breakpoint location.
    pub is_stmt: bool,
    /// First instruction after the prologue.
    pub prologue_end: bool,
    /// First instruction of the epilogue.
    pub epilogue_begin: bool,
}

/// Index into [`DebugInfo::types`].
pub type TypeId = usize;

/// A source type.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Type {
    /// DW_TAG_base_type.
    Base {
        /// Name, e.g. "int".
        name: String,
        /// Size in bytes.
        byte_size: u64,
        /// DW_ATE_* encoding.
        encoding: u8,
    },
    /// DW_TAG_pointer_type; `None` pointee is `void *`.
    Pointer(Option<TypeId>),
    /// DW_TAG_const_type.
    Const(Option<TypeId>),
    /// DW_TAG_volatile_type.
    Volatile(Option<TypeId>),
    /// DW_TAG_restrict_type.
    Restrict(Option<TypeId>),
    /// DW_TAG_typedef.
    Typedef {
        /// The namespace or class it is declared in (its DIE's parent).
        scope: Option<TypeId>,
        /// Name.
        name: String,
        /// The aliased type.
        target: Option<TypeId>,
        /// DW_AT_accessibility of a typedef declared in a class.
        access: Option<Access>,
    },
    /// DW_TAG_structure_type / class_type / union_type.
    Struct {
        /// The namespace or class it is declared in (its DIE's parent).
        scope: Option<TypeId>,
        /// Name, if any.
        name: Option<String>,
        /// Which of the three tags.
        kind: Aggregate,
        /// Size in bytes (`None` for a declaration).
        byte_size: Option<u64>,
        /// Base classes (DW_TAG_inheritance), in declaration order.
        bases: Vec<Base>,
        /// Members, static ones included, in declaration order.
        members: Vec<Member>,
        /// The class holding the vtable pointer (DW_AT_containing_type,
        /// which gdb reads to find a dynamic type).
        containing_type: Option<TypeId>,
        /// How the type is passed (DW_AT_calling_convention).
        passed: Option<PassedBy>,
        /// Template parameters of a class template instance (its first
        /// children, as LLVM writes them).
        template_parameters: Vec<TemplateParameter>,
        /// An anonymous union or struct whose members are its scope's
        /// (DW_AT_export_symbols).
        export_symbols: bool,
    },
    /// DW_TAG_reference_type (`T &`) or DW_TAG_rvalue_reference_type (`T &&`).
    Reference {
        /// `true` for an rvalue reference.
        rvalue: bool,
        /// The referred type.
        target: Option<TypeId>,
    },
    /// DW_TAG_namespace: no type, but the scope other types' DIEs sit in,
    /// kept in the type table so that types refer to it like to a class.
    Namespace {
        /// The enclosing namespace.
        scope: Option<TypeId>,
        /// Name (`None`: an anonymous namespace).
        name: Option<String>,
        /// An inline namespace: DW_AT_export_symbols.
        export_symbols: bool,
    },
    /// DW_TAG_unspecified_type, e.g. `decltype(nullptr)`.
    Unspecified {
        /// Name.
        name: String,
    },
    /// DW_TAG_ptr_to_member_type (`T Class::*`).
    PointerToMember {
        /// The member's type (a subroutine type for a member function).
        target: Option<TypeId>,
        /// The class (DW_AT_containing_type).
        class: TypeId,
    },
    /// DW_TAG_array_type with one subrange per dimension.
    Array {
        /// Element type.
        element: TypeId,
        /// Element counts per dimension (`None`: unknown bound).
        counts: Vec<Option<u64>>,
        /// A vector type (`DIFlagVector`): DW_AT_GNU_vector, and its size in
        /// bytes where it is padded beyond its elements (as LLVM writes
        /// it); `None` for an ordinary array.
        vector: Option<VectorShape>,
    },
    /// DW_TAG_enumeration_type.
    Enum {
        /// The namespace or class it is declared in (its DIE's parent).
        scope: Option<TypeId>,
        /// Name, if any.
        name: Option<String>,
        /// Underlying type.
        underlying: Option<TypeId>,
        /// Size in bytes.
        byte_size: u64,
        /// A scoped enumeration (`enum class`): DW_AT_enum_class.
        enum_class: bool,
        /// (name, value) pairs.
        enumerators: Vec<(String, i64)>,
    },
    /// DW_TAG_subroutine_type.
    Subroutine {
        /// Return type (`None`: void).
        return_type: Option<TypeId>,
        /// Parameter types.
        parameters: Vec<Option<TypeId>>,
        /// The first parameter is a member function's `this`
        /// (DW_AT_artificial), as in the type of a pointer to member function.
        this_parameter: bool,
        /// Takes further arguments (`...`): DW_TAG_unspecified_parameters
        /// after the parameters.
        variadic: bool,
        /// DW_AT_prototyped (LLVM writes it for C and Objective-C only).
        prototyped: bool,
    },
}

/// DW_AT_calling_convention of a class (DWARF 5).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PassedBy {
    /// DW_CC_pass_by_reference: passed through a hidden pointer.
    Reference = 4,
    /// DW_CC_pass_by_value: trivially copyable, passed in registers.
    Value = 5,
}

/// A template parameter of a class or function template instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TemplateParameter {
    /// DW_TAG_template_type_parameter.
    Type {
        /// Name (`None` inside a pack).
        name: Option<String>,
        /// The argument (`None`: void).
        ty: Option<TypeId>,
        /// The default argument (DW_AT_default_value).
        default: bool,
    },
    /// DW_TAG_template_value_parameter with an integer argument.
    Value {
        /// Name (`None` inside a pack).
        name: Option<String>,
        /// The parameter's type.
        ty: Option<TypeId>,
        /// The default argument (DW_AT_default_value).
        default: bool,
        /// DW_AT_const_value (`None`: no constant, e.g. `nullptr`).
        value: Option<ConstantValue>,
    },
    /// DW_TAG_GNU_template_template_param: DW_AT_GNU_template_name.
    Template {
        /// Name.
        name: Option<String>,
        /// The template's name.
        template: String,
    },
    /// DW_TAG_GNU_template_parameter_pack with its arguments as children.
    Pack {
        /// Name.
        name: Option<String>,
        /// The arguments.
        parameters: Vec<TemplateParameter>,
    },
}

/// An integer constant (a template argument, a static member's value),
/// written DW_FORM_udata or DW_FORM_sdata after the signedness of its
/// type, as LLVM writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConstantValue {
    /// Of an unsigned type (bool, pointer, unsigned): DW_FORM_udata.
    Unsigned(u64),
    /// Of a signed type: DW_FORM_sdata.
    Signed(i64),
}

impl Type {
    /// The namespace or class the type's DIE sits in (`None`: the unit).
    pub fn scope(&self) -> Option<TypeId> {
        match self {
            Type::Typedef { scope, .. }
            | Type::Struct { scope, .. }
            | Type::Enum { scope, .. }
            | Type::Namespace { scope, .. } => *scope,
            _ => None,
        }
    }
}

/// A member of a struct or union.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    /// Name.
    pub name: String,
    /// Type.
    pub ty: TypeId,
    /// Offset in bytes from the start of the aggregate (for a bitfield, the
    /// byte holding its first bit).
    pub byte_offset: u64,
    /// For a bitfield member, its bit size and bit offset.
    pub bit_field: Option<BitField>,
    /// DW_AT_accessibility where the source gave one other than the
    /// aggregate's default.
    pub access: Option<Access>,
    /// Made by the compiler (a `_vptr$Class` member): DW_AT_artificial.
    pub artificial: bool,
    /// A static data member: written as a declaration (DW_TAG_variable with
    /// DW_AT_declaration and DW_AT_external, as LLVM writes it for DWARF 5);
    /// `byte_offset` and `bit_field` are unused.
    pub is_static: bool,
    /// A static member's constant value (DW_AT_const_value), when its
    /// initializer is a constant.
    pub const_value: Option<ConstantValue>,
}

/// The tag of an aggregate type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Aggregate {
    /// DW_TAG_structure_type.
    Structure,
    /// DW_TAG_class_type.
    Class,
    /// DW_TAG_union_type.
    Union,
}

/// DW_AT_accessibility values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    /// DW_ACCESS_public.
    Public = 1,
    /// DW_ACCESS_protected.
    Protected = 2,
    /// DW_ACCESS_private.
    Private = 3,
}

/// A base class of an aggregate (DW_TAG_inheritance).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Base {
    /// The base class type.
    pub ty: TypeId,
    /// A non-virtual base: its offset in bytes in the derived object. A
    /// virtual base: the offset in bytes, below the vtable address, of the
    /// slot holding the base's offset (DW_AT_data_member_location is then
    /// LLVM's expression `dup deref constu N minus deref plus`).
    pub byte_offset: u64,
    /// A virtual base (DW_AT_virtuality DW_VIRTUALITY_virtual).
    pub is_virtual: bool,
    /// DW_AT_accessibility where the source gave one.
    pub access: Option<Access>,
}

/// Where a bitfield member's bits are: written as DW_AT_bit_size and
/// DW_AT_data_bit_offset (DWARF 4+), as LLVM writes them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BitField {
    /// Width in bits.
    pub bit_size: u64,
    /// Offset in bits from the start of the aggregate.
    pub data_bit_offset: u64,
}

/// Index into [`DebugInfo::subprograms`].
pub type SubprogramId = usize;

/// A DW_TAG_subprogram: a concrete function, or the abstract origin of an
/// inlined one (then `function` is `None`), or a declaration.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Subprogram {
    /// Source name.
    pub name: String,
    /// Linkage name, when it differs from `name`.
    pub linkage_name: Option<String>,
    /// File index of the declaration.
    pub file: u32,
    /// Line of the declaration.
    pub line: u32,
    /// Return type (`None`: void).
    pub return_type: Option<TypeId>,
    /// DW_AT_external.
    pub external: bool,
    /// DW_AT_prototyped.
    pub prototyped: bool,
    /// Index into [`ObjectModel::functions`] for a concrete function, giving
    /// low_pc/high_pc and the frame base (DW_OP_call_frame_cfa).
    pub function: Option<usize>,
    /// A declaration (DW_AT_declaration) of a function defined elsewhere,
    /// made as the origin of call sites; without `function` and not
    /// `declaration`, the subprogram is the abstract origin of inlined calls.
    pub declaration: bool,
    /// The outermost scope: parameters and locals, nested blocks, inlined calls.
    pub scope: Scope,
    /// The calls the function's code makes (children of its DIE, as LLVM
    /// places them).
    pub calls: Calls,
    /// The namespace or class whose DIE holds this one (`None`: the unit).
    pub context: Option<TypeId>,
    /// The declaration a definition or abstract origin completes
    /// (DW_AT_specification, a member function declared in its class): its
    /// DIE then carries only its code, what differs from the declaration
    /// (file, line, return type), its linkage name when the declaration has
    /// none, and its template parameters, as LLVM writes it.
    pub specification: Option<SubprogramId>,
    /// The parameter types of a declaration (its DW_TAG_formal_parameter
    /// children); a definition's parameters are its variables.
    pub parameters: Vec<ParameterType>,
    /// Takes further arguments (`...`): DW_TAG_unspecified_parameters
    /// after the parameters.
    pub variadic: bool,
    /// C++ properties written on a declaration (or a definition without one).
    pub traits: SubprogramTraits,
    /// Template parameters of a function template instance.
    pub template_parameters: Vec<TemplateParameter>,
    /// The abstract origin of a concrete function that is also inlined
    /// elsewhere (DW_AT_abstract_origin): its DIE then carries only its code
    /// and scopes, and its variables refer to the origin's, as LLVM writes it.
    pub abstract_origin: Option<SubprogramId>,
}

/// A declared parameter's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParameterType {
    /// The type (`None`: unknown).
    pub ty: Option<TypeId>,
    /// Made by the compiler (`this`): DW_AT_artificial.
    pub artificial: bool,
}

/// The C++ attributes of a subprogram DIE beside its name and type.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SubprogramTraits {
    /// DW_AT_accessibility.
    pub access: Option<Access>,
    /// A virtual member function.
    pub virtuality: Option<Virtuality>,
    /// Made by the compiler (an implicit constructor): DW_AT_artificial.
    pub artificial: bool,
    /// DW_AT_explicit.
    pub explicit: bool,
    /// `= delete`: DW_AT_deleted.
    pub deleted: bool,
    /// `[[noreturn]]`: DW_AT_noreturn.
    pub noreturn: bool,
}

/// DW_AT_virtuality of a member function and where its vtable slot is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Virtuality {
    /// DW_VIRTUALITY_pure_virtual rather than DW_VIRTUALITY_virtual.
    pub pure: bool,
    /// The slot: DW_AT_vtable_elem_location `DW_OP_constu N`.
    pub vtable_index: Option<u64>,
    /// The class whose vtable holds it (DW_AT_containing_type).
    pub containing_type: Option<TypeId>,
}

/// The DW_TAG_call_site children of a concrete subprogram.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Calls {
    /// The call sites, in code order.
    pub sites: Vec<CallSite>,
    /// DW_AT_call_all_calls: every call and tail call of the function is
    /// one of `sites`.
    pub all_described: bool,
}

/// A DW_TAG_call_site.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallSite {
    /// Function offset: just past the call (DW_AT_call_return_pc), or for a
    /// tail call the jump itself (DW_AT_call_pc).
    pub offset: u64,
    /// A tail call (DW_AT_call_tail_call).
    pub tail: bool,
    /// What is called.
    pub callee: Callee,
    /// DW_TAG_call_site_parameter children.
    pub parameters: Vec<CallSiteParameter>,
}

/// The target of a call site.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callee {
    /// DW_AT_call_origin: the called function's subprogram DIE.
    Origin(SubprogramId),
    /// DW_AT_call_target `DW_OP_regN`: the address is in this DWARF register.
    Register(u16),
}

/// A DW_TAG_call_site_parameter: an argument register and how to recover,
/// in the caller's frame after the call, the value it held at the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallSiteParameter {
    /// DW_AT_location `DW_OP_regN`: the DWARF register the argument is in.
    pub register: u16,
    /// DW_AT_call_value.
    pub value: CallValue,
}

/// A DW_AT_call_value expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CallValue {
    /// `DW_OP_litN` / `DW_OP_constu N`.
    Constant(u64),
    /// `DW_OP_bregN 0` (then `DW_OP_constu 0xffffffff, DW_OP_and` when only
    /// the low 32 bits are the value): a register the callee preserves.
    Register {
        /// DWARF register number.
        register: u16,
        /// 64, or 32 for the zero-extended low half.
        bits: u16,
    },
    /// `DW_OP_entry_value(DW_OP_regN)`: the caller's own entry value.
    EntryValue {
        /// DWARF register number.
        register: u16,
    },
}

/// A lexical scope's contents.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Scope {
    /// Variables declared directly in this scope (parameters first, in order).
    pub variables: Vec<Variable>,
    /// Nested scopes.
    pub children: Vec<ChildScope>,
}

/// A scope nested in another.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChildScope {
    /// DW_TAG_lexical_block.
    Lexical {
        /// Address ranges (function offsets, half open); empty for an
        /// abstract block.
        ranges: Vec<(u64, u64)>,
        /// Contents.
        scope: Scope,
    },
    /// DW_TAG_inlined_subroutine.
    Inlined {
        /// The abstract origin.
        origin: SubprogramId,
        /// Address ranges (function offsets, half open).
        ranges: Vec<(u64, u64)>,
        /// DW_AT_call_file.
        call_file: u32,
        /// DW_AT_call_line.
        call_line: u32,
        /// DW_AT_call_column.
        call_column: u32,
        /// Contents (variables refer to the origin's by name and line).
        scope: Scope,
    },
}

/// A DW_TAG_formal_parameter or DW_TAG_variable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Variable {
    /// Source name.
    pub name: String,
    /// Argument number (1-based) for a parameter.
    pub arg: Option<u32>,
    /// Type.
    pub ty: Option<TypeId>,
    /// File index.
    pub file: u32,
    /// Declaration line.
    pub line: u32,
    /// Where the value lives.
    pub location: VariableLocation,
    /// Made by the compiler (`this`): DW_AT_artificial.
    pub artificial: bool,
    /// The object pointer of a member function (`this`): its subprogram's
    /// DW_AT_object_pointer names this variable's DIE.
    pub object_pointer: bool,
}

/// A variable's location description.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum VariableLocation {
    /// No location: the variable is optimised out everywhere.
    #[default]
    None,
    /// One location valid throughout the scope (DW_AT_location exprloc).
    Single(Location),
    /// A location list: entries in address order, non-overlapping, over
    /// the given function's code.
    List {
        /// Index into [`ObjectModel::functions`].
        function: usize,
        /// The entries.
        entries: Vec<LocationEntry>,
    },
}

/// One entry of a location list: `[start, end)` in function offsets.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LocationEntry {
    /// First byte offset covered.
    pub start: u64,
    /// One past the last byte offset covered.
    pub end: u64,
    /// The location over that range.
    pub location: Location,
}

/// A location expression in DWARF terms with `DW_OP_LLVM_arg` placeholders:
/// `args[n]` is what `Op::Arg(n)` pushes. The writer lowers it (see
/// ARCHITECTURE.md decision 5).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The operands named by `Op::Arg`.
    pub args: Vec<LocationArg>,
    /// The operations, with DWARF semantics: without `StackValue` the value
    /// left on the stack is the address of the variable (a memory location),
    /// except that a piece that is just `Arg(n)` over a register is a
    /// register location (`[Arg(n), PlusUconst(0)]`, lowered to `DW_OP_bregN
    /// 0`, is the memory at the register's address); with `StackValue` it is
    /// the variable's value. A
    /// `Deref` is a real load (LLVM's trailing `DW_OP_deref` of an indirect
    /// debug value is not one: drop it and leave the address).
    pub ops: Vec<Op>,
}

/// What one `DW_OP_LLVM_arg` stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LocationArg {
    /// A value held in a DWARF register, pushed as the register's contents;
    /// `bits` and `signed` give the width and signedness of the value (the
    /// base type of DW_OP_regval_type in gdb-tuned computed values).
    Register {
        /// DWARF register number.
        register: u16,
        /// Width of the value in bits.
        bits: u16,
        /// Signedness of the value.
        signed: bool,
    },
    /// A `float` or `double` held in a DWARF register (an xmm register).
    /// Alone it is a register location (`DW_OP_regN`). In a computed value
    /// the operations are integer operations on the value's bits (LLVM
    /// salvages integer operations only; an fp operand reaches one through
    /// a salvaged no-op bitcast), so the register is read as its bits:
    /// `DW_OP_regval_type` over the unsigned base type of `bits`. Where
    /// typed operations cannot be used (lldb) that piece is unavailable.
    FloatRegister {
        /// DWARF register number.
        register: u16,
        /// Width of the value in bits (32 or 64).
        bits: u16,
    },
    /// The address `CFA + offset` (a frame slot).
    FrameSlot(i64),
    /// The value a DWARF register held on entry to the function
    /// (`DW_OP_entry_value(DW_OP_regN)`, a generic value): a parameter whose
    /// register has since been reused. A debugger evaluates it from the
    /// caller's call-site information, or shows the value as unavailable.
    EntryValue {
        /// DWARF register number.
        register: u16,
    },
    /// A constant.
    Constant(i64),
}

/// A DWARF expression operation. The generic arithmetic operations map one
/// to one onto DW_OP_*; the LLVM placeholders are lowered by the writer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// DW_OP_LLVM_arg N.
    Arg(u32),
    /// DW_OP_constu.
    Constu(u64),
    /// DW_OP_consts.
    Consts(i64),
    /// DW_OP_plus_uconst.
    PlusUconst(u64),
    /// DW_OP_plus.
    Plus,
    /// DW_OP_minus.
    Minus,
    /// DW_OP_mul.
    Mul,
    /// DW_OP_div.
    Div,
    /// DW_OP_mod.
    Mod,
    /// DW_OP_and.
    And,
    /// DW_OP_or.
    Or,
    /// DW_OP_xor.
    Xor,
    /// DW_OP_shl.
    Shl,
    /// DW_OP_shr.
    Shr,
    /// DW_OP_shra.
    Shra,
    /// DW_OP_neg.
    Neg,
    /// DW_OP_not.
    Not,
    /// DW_OP_deref.
    Deref,
    /// DW_OP_deref_size N.
    DerefSize(u8),
    /// DW_OP_stack_value.
    StackValue,
    /// DW_OP_LLVM_convert bits, signed: lowered to DW_OP_convert.
    Convert {
        /// Target width in bits.
        bits: u16,
        /// Target signedness.
        signed: bool,
    },
    /// A comparison (`DW_OP_eq` ... `DW_OP_ne`): pops two values of one type
    /// and pushes 1 or 0 in the generic type. Typed values compare in their
    /// type's signedness, so a signed comparison of a narrower value is
    /// written with a `Convert` to the signed type before it.
    Compare(Comparison),
    /// DW_OP_piece N: ends one piece of a composite location. Code
    /// generation composes `DW_OP_LLVM_fragment`s of one variable into
    /// pieces covering every byte (a piece with no operations before it is
    /// an empty piece: that part is unavailable).
    Piece(u64),
}

impl Op {
    /// Whether the operation pops two values and pushes one of the lower
    /// one's type (arithmetic, bitwise operations and shifts).
    pub fn is_binary_arithmetic(self) -> bool {
        matches!(
            self,
            Op::Plus
                | Op::Minus
                | Op::Mul
                | Op::Div
                | Op::Mod
                | Op::And
                | Op::Or
                | Op::Xor
                | Op::Shl
                | Op::Shr
                | Op::Shra
        )
    }
}

/// The six DWARF comparison operations: the one table of their names and
/// opcodes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Comparison {
    /// `DW_OP_eq`.
    Eq,
    /// `DW_OP_ne`.
    Ne,
    /// `DW_OP_lt`.
    Lt,
    /// `DW_OP_gt`.
    Gt,
    /// `DW_OP_le`.
    Le,
    /// `DW_OP_ge`.
    Ge,
}

impl Comparison {
    /// Every comparison.
    pub const ALL: [Comparison; 6] = [
        Comparison::Eq,
        Comparison::Ne,
        Comparison::Lt,
        Comparison::Gt,
        Comparison::Le,
        Comparison::Ge,
    ];

    /// The DWARF opcode.
    pub fn opcode(self) -> gimli::DwOp {
        match self {
            Comparison::Eq => gimli::DW_OP_eq,
            Comparison::Ne => gimli::DW_OP_ne,
            Comparison::Lt => gimli::DW_OP_lt,
            Comparison::Gt => gimli::DW_OP_gt,
            Comparison::Le => gimli::DW_OP_le,
            Comparison::Ge => gimli::DW_OP_ge,
        }
    }

    /// The operation's name (`DW_OP_lt`).
    pub fn name(self) -> &'static str {
        self.opcode().static_string().unwrap_or("DW_OP_?")
    }

    /// The comparison named `name`, if it is one.
    pub fn from_name(name: &str) -> Option<Comparison> {
        Comparison::ALL.into_iter().find(|c| c.name() == name)
    }

    /// Whether the result depends on the operands' signedness (`lt`, `gt`,
    /// `le`, `ge`).
    pub fn is_ordered(self) -> bool {
        !matches!(self, Comparison::Eq | Comparison::Ne)
    }
}

/// What makes an array type a vector type (DW_AT_GNU_vector).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorShape {
    /// DW_AT_byte_size, written only when the vector is padded (its size is
    /// larger than its elements').
    pub padded_byte_size: Option<u64>,
}
