//! The four WINLIMIT commands: what each is, and the handler that runs them.
//!
//! A handler parses, opens the key, reads the stored state, asks the pure core for a plan,
//! carries it out through the keyspace adapter and replies. Nothing here decides.

use std::os::raw::c_int;
use std::panic::{catch_unwind, AssertUnwindSafe};

use redis_module::raw;

use crate::args::{self, Algorithm, ArgError};
use crate::keyspace::{self, api, counter, sorted_set, Key, KeyKind};
use crate::request::Mode;
use crate::verdict::Verdict;
use crate::{config, fixed, reply, slide, stats};

/// One of the module's commands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Command {
    Slide = 0,
    Fixed = 1,
    SlideRo = 2,
    FixedRo = 3,
}

impl Command {
    /// Every command, each at the index of its discriminant.
    pub const ALL: [Command; 4] = [Command::Slide, Command::Fixed, Command::SlideRo, Command::FixedRo];

    pub fn name(self) -> &'static std::ffi::CStr {
        match self {
            Command::Slide => c"winlimit.slide",
            Command::Fixed => c"winlimit.fixed",
            Command::SlideRo => c"winlimit.slide_ro",
            Command::FixedRo => c"winlimit.fixed_ro",
        }
    }

    pub fn algorithm(self) -> Algorithm {
        match self {
            Command::Slide | Command::SlideRo => Algorithm::Slide,
            Command::Fixed | Command::FixedRo => Algorithm::Fixed,
        }
    }

    pub fn mode(self) -> Mode {
        match self {
            Command::Slide | Command::Fixed => Mode::Record,
            Command::SlideRo | Command::FixedRo => Mode::Peek,
        }
    }

    /// Redis command flags. `fast` only where the work is O(1): a FIXED call touches one
    /// counter, while a SLIDE call walks the entries that left the window and adds `COST`
    /// members.
    pub fn flags(self) -> &'static std::ffi::CStr {
        match self {
            Command::Slide => c"write deny-oom",
            Command::Fixed => c"write deny-oom fast",
            Command::SlideRo => c"readonly",
            Command::FixedRo => c"readonly fast",
        }
    }

    /// ACL categories, as the core commands these replace have them: ACL rules such as
    /// `-@write` or `+@sortedset` then cover the module's commands too.
    pub fn acl_categories(self) -> &'static std::ffi::CStr {
        match self {
            Command::Slide => c"write sortedset slow",
            Command::Fixed => c"write string fast",
            Command::SlideRo => c"read sortedset slow",
            Command::FixedRo => c"read string fast",
        }
    }

    /// The raw handler Redis calls: one C entry point per command.
    pub fn handler(self) -> raw::RedisModuleCmdFunc {
        extern "C" fn entry<const INDEX: usize>(
            ctx: *mut raw::RedisModuleCtx,
            argv: *mut *mut raw::RedisModuleString,
            argc: c_int,
        ) -> c_int {
            handle(Command::ALL[INDEX], ctx, argv, argc)
        }
        Some(match self {
            Command::Slide => entry::<{ Command::Slide as usize }>,
            Command::Fixed => entry::<{ Command::Fixed as usize }>,
            Command::SlideRo => entry::<{ Command::SlideRo as usize }>,
            Command::FixedRo => entry::<{ Command::FixedRo as usize }>,
        })
    }
}

/// Why a call failed. Every failure happens before the first write.
#[derive(Debug)]
pub enum CommandError {
    Arity,
    Args(ArgError),
    WrongType,
    NotACounter,
    /// A bug caught before it could take the server down.
    Internal,
}

fn handle(
    command: Command,
    ctx: *mut raw::RedisModuleCtx,
    argv: *mut *mut raw::RedisModuleString,
    argc: c_int,
) -> c_int {
    // SAFETY: Redis passes `argc` valid argument pointers.
    let argv = unsafe { std::slice::from_raw_parts(argv, usize::try_from(argc).unwrap_or(0)) };
    let outcome = catch_unwind(AssertUnwindSafe(|| run(command, ctx, argv))).unwrap_or(Err(CommandError::Internal));
    stats::record(command, &outcome);
    match outcome {
        Ok(verdict) => reply::verdict(ctx, verdict),
        Err(error) => reply::error(ctx, &error),
    }
}

fn run(
    command: Command,
    ctx: *mut raw::RedisModuleCtx,
    argv: &[*mut raw::RedisModuleString],
) -> Result<Verdict, CommandError> {
    let [_, key_name, rest @ ..] = argv else { return Err(CommandError::Arity) };
    if rest.len() < 2 {
        return Err(CommandError::Arity);
    }
    // Parse from the stack: every valid call has at most five arguments after the key.
    let mut on_stack: [&[u8]; 8] = [&[]; 8];
    let spilled: Vec<&[u8]>;
    let rest: &[&[u8]] = if rest.len() <= on_stack.len() {
        for (slot, &arg) in on_stack.iter_mut().zip(rest) {
            *slot = keyspace::bytes(arg);
        }
        &on_stack[..rest.len()]
    } else {
        spilled = rest.iter().map(|&arg| keyspace::bytes(arg)).collect();
        &spilled
    };
    let request = args::parse(rest, command.algorithm(), config::max_limit()).map_err(CommandError::Args)?;

    let mode = command.mode();
    let key = Key::open(ctx, *key_name, mode == Mode::Record);
    let now = api!(RedisModule_Milliseconds());
    match (command.algorithm(), key.kind()) {
        (Algorithm::Slide, KeyKind::Missing | KeyKind::SortedSet) => {
            let plan = slide::decide(now, &request, mode, &sorted_set::SortedSetLog::new(&key));
            if mode == Mode::Record {
                sorted_set::apply(&key, &plan);
            }
            Ok(plan.verdict)
        }
        (Algorithm::Fixed, KeyKind::Missing | KeyKind::String) => {
            let stored = counter::read(&key).map_err(|_| CommandError::NotACounter)?;
            let plan = fixed::decide(now, &request, mode, stored);
            if let (Mode::Record, Some(write)) = (mode, plan.write) {
                counter::apply(&key, write);
            }
            Ok(plan.verdict)
        }
        _ => Err(CommandError::WrongType),
    }
}

#[cfg(test)]
mod tests {
    use super::Command;

    #[test]
    fn each_command_sits_at_its_own_index_in_all() {
        for (index, command) in Command::ALL.into_iter().enumerate() {
            assert_eq!(command as usize, index, "{command:?}");
        }
    }
}
