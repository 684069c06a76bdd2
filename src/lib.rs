pub mod args;
pub mod fixed;
pub mod request;
pub mod slide;
pub mod verdict;
