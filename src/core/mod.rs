//! The pure core: parsing, requests, verdicts and one file per algorithm. Nothing here
//! knows Redis; every decision takes the time, the request and a view of the stored state,
//! and returns the verdict with the writes that follow.

pub mod block;
pub mod bucket_ring;
pub mod bucketed;
pub mod counter_text;
pub mod fixed;
pub mod gcra;
pub mod parse;
pub mod request;
pub mod slide;
#[cfg(test)]
mod spec_cases;
#[cfg(test)]
pub mod test_support;
pub mod verdict;
