// Command metricnames reads a JSON array of PromQL expressions on stdin and prints, as a JSON array
// in the same order, the metric names each expression selects, as Prometheus' own parser reads them.
// An expression that does not parse fails the command with the parser's message.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"sort"

	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql/parser"
)

func main() {
	var exprs []string
	if err := json.NewDecoder(os.Stdin).Decode(&exprs); err != nil {
		fmt.Fprintln(os.Stderr, "metricnames: reading the expressions:", err)
		os.Exit(2)
	}
	p := parser.NewParser(parser.Options{})
	result := make([][]string, 0, len(exprs))
	for _, expr := range exprs {
		ast, err := p.ParseExpr(expr)
		if err != nil {
			fmt.Fprintf(os.Stderr, "metricnames: %q: %v\n", expr, err)
			os.Exit(1)
		}
		seen := map[string]bool{}
		parser.Inspect(ast, func(node parser.Node, _ []parser.Node) error {
			if selector, ok := node.(*parser.VectorSelector); ok {
				name := selector.Name
				for _, m := range selector.LabelMatchers {
					if m.Name == labels.MetricName && m.Type == labels.MatchEqual {
						name = m.Value
					}
				}
				if name == "" {
					fmt.Fprintf(os.Stderr, "metricnames: %q selects no metric by name\n", expr)
					os.Exit(1)
				}
				seen[name] = true
			}
			return nil
		})
		names := make([]string, 0, len(seen))
		for name := range seen {
			names = append(names, name)
		}
		sort.Strings(names)
		result = append(result, names)
	}
	if err := json.NewEncoder(os.Stdout).Encode(result); err != nil {
		fmt.Fprintln(os.Stderr, "metricnames:", err)
		os.Exit(2)
	}
}
