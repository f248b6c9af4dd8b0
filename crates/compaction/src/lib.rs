pub mod offline;
