//! A bot module with its fuel counted by the module itself: what a browser runs, so that its
//! WebAssembly engine counts the very fuel wasmtime counts, and the bot's virtual clocks (and so
//! its moves) are the same in the page as on the server.
//!
//! [`instrument`] rewrites every function as wasmtime 48's cranelift compiles fuel
//! (`wasmtime-internal-cranelift`'s `fuel_before_op`, `fuel_check`, the default `OperatorCost`):
//!
//! - every operator costs 1, but `nop`, `drop`, `block`, `loop`, `unreachable`, `return`,
//!   `else` and `end`, which cost 0; a function's entry costs 1;
//! - the costs are added to a counter at the same points as wasmtime adds them to its own: before
//!   `unreachable`, `return`, `call`, `call_indirect`, `loop`, `if`, `else`, `br`, `br_if`,
//!   `br_table` and `end` (each operator's own cost included);
//! - the counter is compared with the budget where wasmtime compares: at a function's entry and
//!   at the head of every loop; at or past the budget the module sets its out-of-fuel flag and
//!   traps.
//!
//! The counter is the exported mutable global [`FUEL_USED_EXPORT`] (an `i64`, counting up from
//! 0); the budget is [`FUEL_LIMIT_EXPORT`] (the host sets it to the counter plus a call's fuel
//! before each call); [`OUT_OF_FUEL_EXPORT`] is 1 after a trap for fuel. So at every call to an
//! import (a clock read) the counter is the fuel wasmtime has used by then, and after a call the
//! fuel the call used.
//!
//! Operators whose wasmtime cost depends on their operands (`memory.copy`, `memory.fill`,
//! `memory.init`, the `table.*` bulk operators), and those of proposals a bot built by the
//! documented line never has (exceptions, tail calls, typed function references, GC), are
//! refused: such a module is not offered to browsers.

use wasm_encoder::reencode::{Error as ReencodeError, Reencode, utils};
use wasm_encoder::{ConstExpr, ExportKind, Function, GlobalType, Instruction, SectionId, ValType};
use wasmparser::{Operator, Parser, Payload, TypeRef};

/// The exported counter of the fuel used (an `i64` global, mutable).
pub const FUEL_USED_EXPORT: &str = "othello_fuel_used";
/// The exported budget: a function entry or loop head at or past it traps (an `i64` global).
pub const FUEL_LIMIT_EXPORT: &str = "othello_fuel_limit";
/// The exported flag set to 1 before a trap for fuel (an `i32` global).
pub const OUT_OF_FUEL_EXPORT: &str = "othello_out_of_fuel";

/// `bytes` with fuel metering of its own (see the module's documentation), or why it cannot be
/// metered.
pub fn instrument(bytes: &[u8]) -> Result<Vec<u8>, String> {
    let scan = Scan::of(bytes)?;
    let mut metering =
        Metering { used: scan.globals, limit: scan.globals + 1, out: scan.globals + 2, scan, added: false };
    let mut module = wasm_encoder::Module::new();
    metering.parse_core_module(&mut module, Parser::new(0), bytes).map_err(|e| match e {
        ReencodeError::UserError(why) => why,
        other => format!("the module cannot be rewritten: {other}"),
    })?;
    let rewritten = module.finish();
    wasmparser::Validator::new()
        .validate_all(&rewritten)
        .map_err(|e| format!("the metered module is not valid: {e}"))?;
    Ok(rewritten)
}

/// What the rewrite needs to know before it starts: how many globals there are (the new ones
/// come after), and whether the module has a global section.
struct Scan {
    globals: u32,
    has_global_section: bool,
    /// The fuel wasmtime charges for the instantiation (see [`instantiation_fuel`]).
    instantiation_fuel: i64,
}

impl Scan {
    fn of(bytes: &[u8]) -> Result<Scan, String> {
        let mut scan = Scan { globals: 0, has_global_section: false, instantiation_fuel: 0 };
        let mut segments = Vec::new();
        for payload in Parser::new(0).parse_all(bytes) {
            match payload.map_err(|e| format!("not a WebAssembly module: {e}"))? {
                Payload::ImportSection(imports) => {
                    for import in imports.into_imports() {
                        if matches!(import.map_err(|e| e.to_string())?.ty, TypeRef::Global(_)) {
                            scan.globals += 1;
                        }
                    }
                }
                Payload::GlobalSection(globals) => {
                    scan.has_global_section = true;
                    scan.globals += globals.count();
                }
                Payload::ExportSection(exports) => {
                    for export in exports {
                        let name = export.map_err(|e| e.to_string())?.name;
                        if [FUEL_USED_EXPORT, FUEL_LIMIT_EXPORT, OUT_OF_FUEL_EXPORT].contains(&name) {
                            return Err(format!("the module already exports `{name}`"));
                        }
                    }
                }
                Payload::DataSection(data) => {
                    for datum in data {
                        let datum = datum.map_err(|e| e.to_string())?;
                        if matches!(datum.kind, wasmparser::DataKind::Active { .. }) {
                            segments.push(datum.data.len());
                        }
                    }
                }
                Payload::Version { encoding: wasmparser::Encoding::Component, .. } => {
                    return Err("a component, not a module".to_owned());
                }
                _ => {}
            }
        }
        scan.instantiation_fuel = instantiation_fuel(&segments);
        Ok(scan)
    }
}

/// The fuel wasmtime 48 charges for instantiating a module whose active data segments are
/// `segments` bytes long: a unit a byte and a unit a segment, and one more when there is any
/// (its initialisation of memory is compiled code counted as a function: an entry and a
/// `memory.init` a segment, each copied byte a unit); nothing without data. Measured, and checked
/// by the tests (`host/wasm/tests/metering.rs`).
fn instantiation_fuel(segments: &[usize]) -> i64 {
    match segments.is_empty() {
        true => 0,
        false => 1 + segments.iter().map(|&len| 1 + len as i64).sum::<i64>(),
    }
}

struct Metering {
    scan: Scan,
    /// The indices of the new globals.
    used: u32,
    limit: u32,
    out: u32,
    /// The new globals were added.
    added: bool,
}

impl Metering {
    fn add_globals(&mut self, globals: &mut wasm_encoder::GlobalSection) {
        let mutable = |val_type| GlobalType { val_type, mutable: true, shared: false };
        // The counter starts with the instantiation's fuel, as wasmtime's count does.
        globals.global(mutable(ValType::I64), &ConstExpr::i64_const(self.scan.instantiation_fuel));
        // No budget until the host sets one (a start function runs before it can).
        globals.global(mutable(ValType::I64), &ConstExpr::i64_const(i64::MAX));
        globals.global(mutable(ValType::I32), &ConstExpr::i32_const(0));
        self.added = true;
    }

    /// Adds `cost` to the counter.
    fn flush(&self, function: &mut Function, cost: i64) {
        if cost == 0 {
            return;
        }
        function
            .instruction(&Instruction::GlobalGet(self.used))
            .instruction(&Instruction::I64Const(cost))
            .instruction(&Instruction::I64Add)
            .instruction(&Instruction::GlobalSet(self.used));
    }

    /// Traps, flagged, when the counter is at or past the budget (wasmtime's `fuel_check`).
    fn check(&self, function: &mut Function) {
        function
            .instruction(&Instruction::GlobalGet(self.used))
            .instruction(&Instruction::GlobalGet(self.limit))
            .instruction(&Instruction::I64GeS)
            .instruction(&Instruction::If(wasm_encoder::BlockType::Empty))
            .instruction(&Instruction::I32Const(1))
            .instruction(&Instruction::GlobalSet(self.out))
            .instruction(&Instruction::Unreachable)
            .instruction(&Instruction::End);
    }
}

/// wasmtime 48's default cost of `op` (`default_operator_cost`), or why it is not metered here.
fn cost(op: &Operator) -> Result<i64, String> {
    Ok(match op {
        Operator::Nop | Operator::Drop => 0,
        Operator::Block { .. }
        | Operator::Loop { .. }
        | Operator::Unreachable
        | Operator::Return
        | Operator::Else
        | Operator::End => 0,
        Operator::MemoryCopy { .. }
        | Operator::MemoryFill { .. }
        | Operator::MemoryInit { .. }
        | Operator::TableCopy { .. }
        | Operator::TableFill { .. }
        | Operator::TableInit { .. }
        | Operator::TableGrow { .. } => {
            return Err(format!(
                "the module uses `{op:?}`, whose fuel depends on its operands (build it without -mbulk-memory)"
            ));
        }
        Operator::ReturnCall { .. }
        | Operator::ReturnCallIndirect { .. }
        | Operator::ReturnCallRef { .. }
        | Operator::CallRef { .. }
        | Operator::Throw { .. }
        | Operator::ThrowRef
        | Operator::TryTable { .. }
        | Operator::Try { .. }
        | Operator::Catch { .. }
        | Operator::CatchAll
        | Operator::Rethrow { .. }
        | Operator::Delegate { .. }
        | Operator::BrOnNull { .. }
        | Operator::BrOnNonNull { .. }
        | Operator::BrOnCast { .. }
        | Operator::BrOnCastFail { .. } => {
            return Err(format!("the module uses `{op:?}`, which a browser's fuel is not counted for"));
        }
        _ => 1,
    })
}

/// Whether wasmtime adds the costs so far to its counter before `op`.
fn flushes_before(op: &Operator) -> bool {
    matches!(
        op,
        Operator::Unreachable
            | Operator::Return
            | Operator::Call { .. }
            | Operator::CallIndirect { .. }
            | Operator::Loop { .. }
            | Operator::If { .. }
            | Operator::Else
            | Operator::Br { .. }
            | Operator::BrIf { .. }
            | Operator::BrTable { .. }
            | Operator::End
    )
}

/// The sections that come after the global section in a module.
fn after_globals(section: Option<SectionId>) -> bool {
    matches!(
        section,
        None | Some(
            SectionId::Export
                | SectionId::Start
                | SectionId::Element
                | SectionId::DataCount
                | SectionId::Code
                | SectionId::Data
        )
    )
}

impl Reencode for Metering {
    type Error = String;

    fn parse_global_section(
        &mut self,
        globals: &mut wasm_encoder::GlobalSection,
        section: wasmparser::GlobalSectionReader<'_>,
    ) -> Result<(), ReencodeError<String>> {
        utils::parse_global_section(self, globals, section)?;
        self.add_globals(globals);
        Ok(())
    }

    fn intersperse_section_hook(
        &mut self,
        module: &mut wasm_encoder::Module,
        _after: Option<SectionId>,
        before: Option<SectionId>,
    ) -> Result<(), ReencodeError<String>> {
        // A module without globals gets a section for the new ones, in its place.
        if !self.scan.has_global_section && !self.added && after_globals(before) {
            let mut globals = wasm_encoder::GlobalSection::new();
            self.add_globals(&mut globals);
            module.section(&globals);
        }
        Ok(())
    }

    fn parse_export_section(
        &mut self,
        exports: &mut wasm_encoder::ExportSection,
        section: wasmparser::ExportSectionReader<'_>,
    ) -> Result<(), ReencodeError<String>> {
        utils::parse_export_section(self, exports, section)?;
        exports.export(FUEL_USED_EXPORT, ExportKind::Global, self.used);
        exports.export(FUEL_LIMIT_EXPORT, ExportKind::Global, self.limit);
        exports.export(OUT_OF_FUEL_EXPORT, ExportKind::Global, self.out);
        Ok(())
    }

    fn parse_function_body(
        &mut self,
        code: &mut wasm_encoder::CodeSection,
        body: wasmparser::FunctionBody<'_>,
    ) -> Result<(), ReencodeError<String>> {
        let mut function = self.new_function_with_parsed_locals(&body)?;
        // A function's entry costs 1, and is checked.
        self.flush(&mut function, 1);
        self.check(&mut function);
        let mut pending = 0i64;
        let mut reader = body.get_operators_reader()?;
        while !reader.eof() {
            let op = reader.read()?;
            pending += cost(&op).map_err(ReencodeError::UserError)?;
            if flushes_before(&op) {
                self.flush(&mut function, std::mem::take(&mut pending));
            }
            let is_loop = matches!(op, Operator::Loop { .. });
            function.instruction(&self.instruction(op)?);
            if is_loop {
                self.check(&mut function);
            }
        }
        code.function(&function);
        Ok(())
    }
}
