// Package query is what charts, search and alerts share to read a
// source: its table resolved against the real columns (Scope), the where
// languages (Lucene, Datadog, checked SQL) compiled against it with bound
// Params, the settings a user's query runs under, and how the engine's
// refusals are told apart (the caller's mistake, a timeout, memory).
// User input never becomes SQL text: field names resolve to known columns
// or to map lookups whose keys are bound, and every value is a query
// parameter.
package query
