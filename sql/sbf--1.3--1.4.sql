/* sbf--1.3--1.4.sql: update sbf 1.3 to 1.4 (ALTER EXTENSION sbf UPDATE) */

-- complain if script is sourced in psql, rather than via CREATE EXTENSION
\echo Use "ALTER EXTENSION sbf UPDATE TO '1.4'" to load this file. \quit

-- Every SQL object new in 1.4 is created here.  A fresh CREATE EXTENSION sbf
-- runs sbf--1.4.sql, which the Makefile builds as sbf--1.0.sql, then the
-- update scripts in order, ending with this file, so both paths end with the
-- same catalog.  Values stored by 1.0 to 1.3 keep reading: see docs/format.md.
