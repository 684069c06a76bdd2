//! The one handler every command runs through: split the arguments, parse them with the
//! row's adapter, open the call's key once, run the adapter with panics caught, count the
//! outcome, reply.

use std::mem::MaybeUninit;
use std::os::raw::c_int;

use redis_module::raw;

use crate::core::verdict::Verdict;
use crate::redis::api::{self, Ctx, ServerString};
use crate::redis::call::{Call, CommandError};
use crate::redis::commands::{CommandSpec, MAX_COMMANDS, TABLE};
use crate::redis::key::CallKey;
use crate::redis::panics::catch;
use crate::redis::{reply, stats};

/// The C entry point Redis calls for the command at `TABLE[INDEX]`.
///
/// # Safety
/// Called by the server, with the command's live context and `argc` argument strings.
unsafe extern "C" fn entry<const INDEX: usize>(
    ctx: *mut raw::RedisModuleCtx,
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
) -> c_int {
    // SAFETY: the command's live context and `argc` argument strings (the caller's promise),
    // valid and unchanged until the command returns; neither is kept past this call.
    let (ctx, argv) = unsafe { (Ctx::from_raw(ctx), api::argv(argv, argc)) };
    // The adapter's panics are caught inside (an error reply, counted); this catches the rest.
    catch(c"a command's reply", || raw::Status::Err as c_int, || handle(INDEX, ctx, argv))
}

macro_rules! entries {
    ($($index:literal)*) => { [$(Some(entry::<$index> as unsafe extern "C" fn(_, _, _) -> _)),*] };
}

/// One entry point per table row, by index (a list of MAX_COMMANDS of them, or no build).
pub const ENTRIES: [raw::RedisModuleCmdFunc; MAX_COMMANDS] = entries!(0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15);

fn handle(index: usize, ctx: Ctx<'_>, argv: &[ServerString<'_>]) -> c_int {
    let Some(spec) = TABLE.get(index) else { return reply::error(ctx, &CommandError::Internal) };
    let outcome = catch(spec.name, || Err(CommandError::Internal), || run(spec, ctx, argv));
    stats::record(index, &outcome);
    match outcome {
        Ok(verdict) => reply::verdict(ctx, spec.reply, verdict),
        Err(error) => reply::error(ctx, &error),
    }
}

fn run(spec: &CommandSpec, ctx: Ctx<'_>, argv: &[ServerString<'_>]) -> Result<Verdict, CommandError> {
    // Servers without command metadata (Redis 6.2) do not check the arity for modules.
    let arity = usize::try_from(spec.arity.unsigned_abs()).unwrap_or(usize::MAX);
    if argv.len() < arity || (spec.arity > 0 && argv.len() != arity) {
        return Err(CommandError::Arity);
    }
    let [_, key_name, rest @ ..] = argv else { return Err(CommandError::Arity) };
    // Split onto the stack (a one-window call has at most five arguments after the key),
    // writing only the slots the call fills.
    let mut on_stack = [MaybeUninit::<&[u8]>::uninit(); 8];
    let spilled: Vec<&[u8]>;
    let args: &[&[u8]] = if rest.len() <= on_stack.len() {
        for (slot, arg) in on_stack.iter_mut().zip(rest) {
            slot.write(arg.bytes());
        }
        let filled: *const [MaybeUninit<&[u8]>] = &on_stack[..rest.len()];
        // SAFETY: the first `rest.len()` slots were just written, and `MaybeUninit<T>` has
        // `T`'s layout; the slice borrows `on_stack`, which outlives its use below.
        unsafe { &*(filled as *const [&[u8]]) }
    } else {
        spilled = rest.iter().map(|arg| arg.bytes()).collect();
        &spilled
    };
    // SAFETY: argument 1 is the key of the command `ctx` serves, and this is the call's only
    // `CallKey`.
    let key = unsafe { CallKey::new(ctx, *key_name) };
    (spec.run)(&Call { args, mode: spec.mode }, key)
}
