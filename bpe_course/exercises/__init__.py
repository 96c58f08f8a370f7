"""Checkers for the chapters' exercises: one module per chapter, each giving specific feedback and a hint."""
