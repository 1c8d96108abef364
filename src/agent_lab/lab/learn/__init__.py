"""Rules for the resolvers, learned from logs: mined on one part, admitted on another."""
