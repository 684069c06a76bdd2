pub mod args;
pub mod request;
pub mod slide;
pub mod verdict;
