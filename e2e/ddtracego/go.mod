module github.com/otelhouse/otelhouse/e2e/ddtracego

go 1.26.8

replace github.com/otelhouse/otelhouse => ../..

require github.com/DataDog/dd-trace-go/v2 v2.12.0 // indirect
