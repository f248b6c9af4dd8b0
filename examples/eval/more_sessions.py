#!/usr/bin/env python3
"""Writes four more evaluation sessions (deterministic; run from this directory):
go-service.jsonl, react-vite.jsonl, python-pipeline.jsonl and java-gradle.jsonl.

They cover shapes the first two sessions do not: Go compiler, test and race-detector
output; a correction opened by an interjection ("hmm no, …"); a rule given mid-way ("from
now on …"); a directory created and a file moved into it in one command; a session that
starts after a compaction pi wrote (pi's headings, checkbox bullets, bold decision labels,
headings of its own); errors pasted in a code fence; `npm ERR! ERESOLVE`; ESLint's
"stylish" report; an approach rejected right after an aborted call; a long Python data
pipeline whose crash is fixed early (it must not read as open later), `sed -i` edits,
`mypy` and `ruff` reports, and successive requests where the latest differs from the first.
java-gradle.jsonl was written after the summarizer had been fixed for the other three, to
see what still failed on a session it had not been tuned on (Gradle and JUnit output, a
chained Java exception, a correction opened by "hold on", a command the user ran with `!`).
"""

from write_sessions import Session


def go_service():
    s = Session("go-service", "/home/dev/orders-api", "claude-sonnet-4-5")
    s.user("add per-client rate limiting to the orders API. clients are identified by the "
           "X-API-Key header. the limit should be configurable via env (ORDERS_RATE_LIMIT, "
           "requests per minute, default 120). stdlib only, don't pull in new modules")
    [main, server] = s.assistant(
        "Let me look at how the server is wired.",
        [("read", {"path": "cmd/server/main.go"}), ("read", {"path": "internal/api/server.go"})],
        thinking="I need the router setup and the config loading before adding middleware.")
    s.result(main, "read",
             "package main\n\nimport (\n\t\"log\"\n\t\"net/http\"\n\t\"os\"\n\n"
             "\t\"github.com/acme/orders-api/internal/api\"\n\t\"github.com/acme/orders-api/internal/store\"\n)\n\n"
             "func main() {\n\tdb := store.MustOpen(os.Getenv(\"ORDERS_DB_URL\"))\n"
             "\tsrv := api.NewServer(db)\n\tlog.Fatal(http.ListenAndServe(\":8080\", srv.Routes()))\n}\n")
    s.result(server, "read",
             "package api\n\nimport (\n\t\"net/http\"\n\n\t\"github.com/acme/orders-api/internal/store\"\n)\n\n"
             "// Server serves the orders API.\ntype Server struct {\n\tdb *store.DB\n}\n\n"
             "// NewServer returns a Server backed by db.\nfunc NewServer(db *store.DB) *Server { return &Server{db: db} }\n\n"
             "// Routes returns the HTTP handler.\nfunc (s *Server) Routes() http.Handler {\n"
             "\tmux := http.NewServeMux()\n\tmux.HandleFunc(\"GET /orders/{id}\", s.getOrder)\n"
             "\tmux.HandleFunc(\"POST /orders\", s.createOrder)\n\treturn mux\n}\n")
    s.tool("I'll add a token bucket per API key in internal/api/ratelimit.go, kept in a "
           "package-level map guarded by a mutex, and wrap the mux in `Routes`.", "write",
           {"path": "internal/api/ratelimit.go",
            "content": "package api\n\nvar (\n\tbucketsMu sync.Mutex\n\tbuckets   = map[string]*bucket{}\n)\n\n"
                       "func rateLimit(next http.Handler) http.Handler { /* … */ }\n"},
           "Successfully wrote 1184 bytes to internal/api/ratelimit.go")
    s.tool(None, "edit", {"path": "internal/api/server.go", "oldText": "\treturn mux\n",
                          "newText": "\treturn ratelimit(mux)\n"},
           "Successfully replaced text in internal/api/server.go.")
    s.tool(None, "bash", {"command": "go build ./..."},
           "# github.com/acme/orders-api/internal/api\n"
           "internal/api/server.go:24:9: undefined: ratelimit\n\nCommand exited with code 1", True)
    s.tool("Typo in the call: the function is `rateLimit`.", "edit",
           {"path": "internal/api/server.go", "oldText": "return ratelimit(mux)",
            "newText": "return rateLimit(mux)"},
           "Successfully replaced text in internal/api/server.go.")
    s.tool(None, "bash", {"command": "go build ./... && go test ./..."},
           "?   \tgithub.com/acme/orders-api/cmd/server\t[no test files]\n"
           "ok  \tgithub.com/acme/orders-api/internal/api\t0.018s\n"
           "ok  \tgithub.com/acme/orders-api/internal/store\t(cached)\n")
    s.assistant("Rate limiting is in: a package-level map of token buckets keyed by X-API-Key, "
                "refilled at ORDERS_RATE_LIMIT per minute (default 120). Build and tests pass.")

    s.user("hmm no, I don't want package-level state, the tests will leak into each other. put "
           "the limiter on the Server struct and construct it in main")
    s.tool("Got it. I'll move the buckets into a `RateLimiter` type that `Server` owns, built in "
           "main.go from ORDERS_RATE_LIMIT.", "write",
           {"path": "internal/api/ratelimit.go",
            "content": "package api\n\n// RateLimiter hands out one token bucket per API key.\ntype RateLimiter struct {\n"
                       "\tmu      sync.Mutex\n\tperMin  int\n\tbuckets map[string]*bucket\n}\n"},
           "Successfully wrote 1630 bytes to internal/api/ratelimit.go")
    s.tool(None, "edit", {"path": "internal/api/server.go",
                          "oldText": "type Server struct {\n\tdb *store.DB\n}",
                          "newText": "type Server struct {\n\tdb      *store.DB\n\tlimiter *RateLimiter\n}"},
           "Successfully replaced text in internal/api/server.go.")
    s.tool(None, "edit", {"path": "cmd/server/main.go",
                          "oldText": "srv := api.NewServer(db)",
                          "newText": "srv := api.NewServer(db, api.NewRateLimiter(envInt(\"ORDERS_RATE_LIMIT\", 120)))"},
           "Successfully replaced text in cmd/server/main.go.")
    s.tool(None, "write", {"path": "internal/api/ratelimit_test.go",
                           "content": "func TestRateLimitConcurrent(t *testing.T) {\n\tl := NewRateLimiter(60)\n\t// 50 goroutines …\n}\n"},
           "Successfully wrote 940 bytes to internal/api/ratelimit_test.go")
    s.tool(None, "bash", {"command": "go test -race ./internal/..."},
           "==================\nWARNING: DATA RACE\n"
           "Write at 0x00c0000a4180 by goroutine 12:\n"
           "  runtime.mapassign_faststr()\n      /usr/local/go/src/runtime/map_faststr.go:203 +0x0\n"
           "  github.com/acme/orders-api/internal/api.(*RateLimiter).allow()\n"
           "      /home/dev/orders-api/internal/api/ratelimit.go:38 +0x10c\n\n"
           "Previous read at 0x00c0000a4180 by goroutine 11:\n"
           "  github.com/acme/orders-api/internal/api.(*RateLimiter).allow()\n"
           "      /home/dev/orders-api/internal/api/ratelimit.go:33 +0x7e\n"
           "==================\n"
           "--- FAIL: TestRateLimitConcurrent (0.01s)\n"
           "    testing.go:1465: race detected during execution of test\n"
           "FAIL\nFAIL\tgithub.com/acme/orders-api/internal/api\t0.041s\n"
           "ok  \tgithub.com/acme/orders-api/internal/store\t1.012s\nFAIL\n\n"
           "Command exited with code 1", True)
    s.tool("The race is in `allow`: it looks the bucket up before taking the mutex. The fix is "
           "to hold `mu` for the whole lookup-and-take.", "edit",
           {"path": "internal/api/ratelimit.go",
            "oldText": "\tb, ok := l.buckets[key]\n\tl.mu.Lock()\n",
            "newText": "\tl.mu.Lock()\n\tdefer l.mu.Unlock()\n\tb, ok := l.buckets[key]\n"},
           "Successfully replaced text in internal/api/ratelimit.go.")
    s.tool(None, "bash", {"command": "go test -race ./internal/..."},
           "ok  \tgithub.com/acme/orders-api/internal/api\t1.207s\n"
           "ok  \tgithub.com/acme/orders-api/internal/store\t1.015s\n")
    s.assistant("The limiter now lives on `Server` (built in main.go), and the race detector is "
                "clean.")

    s.user("nice. btw from now on every exported func needs a doc comment, golint runs in CI "
           "now. and keep the handlers thin, the logic goes in internal/service.\n\n"
           "next: the limiter is middleware, not api. move it to internal/middleware")
    s.tool(None, "bash", {"command": "mkdir -p internal/middleware && git mv internal/api/ratelimit.go internal/middleware/ratelimit.go && git mv internal/api/ratelimit_test.go internal/middleware/ratelimit_test.go"}, "")
    s.tool(None, "bash", {"command": "sed -i 's/^package api$/package middleware/' internal/middleware/ratelimit.go internal/middleware/ratelimit_test.go"}, "")
    s.tool(None, "bash", {"command": "go build ./..."},
           "# github.com/acme/orders-api/internal/api\n"
           "internal/api/server.go:13:11: undefined: RateLimiter\n"
           "# github.com/acme/orders-api/cmd/server\n"
           "cmd/server/main.go:15:33: undefined: api.NewRateLimiter\n\nCommand exited with code 1",
           True)
    s.tool("Both callers still use the old package.", "edit",
           {"path": "internal/api/server.go", "oldText": "\tlimiter *RateLimiter",
            "newText": "\tlimiter *middleware.RateLimiter"},
           "Successfully replaced text in internal/api/server.go.")
    s.tool(None, "edit", {"path": "cmd/server/main.go", "oldText": "api.NewRateLimiter(",
                          "newText": "middleware.NewRateLimiter("},
           "Successfully replaced text in cmd/server/main.go.")
    s.tool(None, "bash", {"command": "go build ./... && go vet ./..."}, "")
    s.tool(None, "bash", {"command": "go test -race ./..."},
           "?   \tgithub.com/acme/orders-api/cmd/server\t[no test files]\n"
           "ok  \tgithub.com/acme/orders-api/internal/api\t0.022s\n"
           "ok  \tgithub.com/acme/orders-api/internal/middleware\t1.198s\n"
           "ok  \tgithub.com/acme/orders-api/internal/store\t1.010s\n")
    s.assistant("Moved the limiter to `internal/middleware` (history kept with git mv); vet and "
                "the race-enabled tests pass.")

    s.user("run the integration tests too")
    s.assistant("Running the integration suite.",
                [("bash", {"command": "go test -tags=integration ./..."})])
    s.assistant(None, stop="aborted", error="Request was aborted")
    s.user("wait, those need the docker db, skip them for now.")
    s.assistant("Okay, skipping the integration tests.")

    s.user("ok now add a metric for rejected requests: orders_ratelimit_rejected_total, "
           "registered on the existing prometheus registry in internal/metrics. label it by "
           "route, not by api key (cardinality).")
    s.tool(None, "read", {"path": "internal/metrics/metrics.go"},
           "package metrics\n\nimport \"github.com/prometheus/client_golang/prometheus\"\n\n"
           "// Registry is the process-wide registry served on /metrics.\n"
           "var Registry = prometheus.NewRegistry()\n")
    s.tool("I'll add a `RejectedTotal` counter vector with a `route` label and increment it "
           "where the limiter answers 429.", "edit",
           {"path": "internal/metrics/metrics.go",
            "oldText": "var Registry = prometheus.NewRegistry()\n",
            "newText": "var Registry = prometheus.NewRegistry()\n\n// RejectedTotal counts requests the rate limiter turned away, by route.\n"
                       "var RejectedTotal = prometheus.NewCounterVec(prometheus.CounterOpts{Name: \"orders_ratelimit_rejected_total\"}, []string{\"route\"})\n"},
           "Successfully replaced text in internal/metrics/metrics.go.")
    s.tool(None, "edit", {"path": "internal/middleware/ratelimit.go",
                          "oldText": "\t\tif !l.allow(key) {\n\t\t\thttp.Error(w, \"rate limited\", http.StatusTooManyRequests)\n\t\t\treturn\n\t\t}",
                          "newText": "\t\tif !l.allow(key) {\n\t\t\thttp.Error(w, \"rate limited\", http.StatusTooManyRequests)\n\t\t\treturn\n\t\t\tmetrics.RejectedTotal.WithLabelValues(r.Pattern).Inc()\n\t\t}"},
           "Successfully replaced text in internal/middleware/ratelimit.go.")
    s.tool(None, "edit", {"path": "internal/middleware/ratelimit_test.go",
                          "oldText": "func TestRateLimitConcurrent(",
                          "newText": "func TestRejectedMetric(t *testing.T) {\n\t// two requests over a limit of 1 …\n\tif got := testutil.ToFloat64(metrics.RejectedTotal.WithLabelValues(\"GET /orders/{id}\")); got != 1 {\n\t\tt.Fatalf(\"rejected_total = %v, want 1\", got)\n\t}\n}\n\nfunc TestRateLimitConcurrent("},
           "Successfully replaced text in internal/middleware/ratelimit_test.go.")
    s.tool(None, "bash", {"command": "go test ./internal/middleware/"},
           "--- FAIL: TestRejectedMetric (0.00s)\n"
           "    ratelimit_test.go:21: rejected_total = 0, want 1\n"
           "FAIL\nFAIL\tgithub.com/acme/orders-api/internal/middleware\t0.006s\nFAIL\n\n"
           "Command exited with code 1", True)
    s.assistant("The counter never moves: I put `Inc()` after the `return`, so it is unreachable. "
                "Next, I'll move the increment above the `return` in the limiter's handler and "
                "rerun `go test ./internal/middleware/`.")
    return s


PI_SUMMARY = """## Goal
Build the cart drawer for the shopfront (React 18 + Vite + TypeScript): a slide-in drawer listing the cart items with quantity controls and a checkout button.

## Constraints & Preferences
- Tailwind utility classes only, no CSS modules
- Cart state stays in the zustand store (src/store/cart.ts); no Redux
- Must respect prefers-reduced-motion

## Progress
### Done
- [x] Created src/components/CartDrawer.tsx with the item list and the checkout button
- [x] Added `removeItem` and `setQuantity` actions to src/store/cart.ts

### In Progress
- [ ] Quantity stepper component (src/components/QuantityStepper.tsx)

### Blocked
- (none)

## Key Decisions
- **Drawer rendered through a portal**: into #drawer-root, so it overlays the sticky header
- **Prices in integer cents**: all cart math in cents, formatted with Intl.NumberFormat only at render

## Next Steps
1. Finish QuantityStepper and use it in CartDrawer
2. Add a vitest for setQuantity clamping at zero

## Critical Context
- Dev server: `npm run dev` (Vite, port 5173)
- Drawer width: 420px on desktop, full width below the sm breakpoint (640px)

## Open Questions
- Should an item whose quantity reaches 0 be removed, or kept greyed out? The user has not decided.

## Files Touched
- src/components/CartDrawer.tsx (new)
- src/store/cart.ts (two actions added)"""


def react_vite():
    s = Session("react-vite", "/home/dev/shopfront", "claude-sonnet-4-5")
    s.user("Let's build the cart drawer. Tailwind utility classes only, no CSS modules. Keep the "
           "cart state in the zustand store, no Redux.")
    s.tool("Let me look at the app shell.", "read", {"path": "src/App.tsx"},
           "import { Header } from './components/Header';\nimport { LegacyCart } from './components/LegacyCart';\n\n"
           "export default function App() {\n  return (<><Header /><LegacyCart /></>);\n}\n")
    s.tool(None, "read", {"path": "src/main.tsx"},
           "ReactDOM.createRoot(document.getElementById('root')!).render(<App />);\n")
    s.tool("I'll create the drawer with the item list.", "write",
           {"path": "src/components/CartDrawer.tsx",
            "content": "export function CartDrawer() {\n  const items = useCart((s) => s.items);\n  return createPortal(<aside className=\"fixed inset-y-0 right-0 w-full sm:w-[420px]\">…</aside>, drawerRoot);\n}\n"},
           "Successfully wrote 1422 bytes to src/components/CartDrawer.tsx")
    s.user("Good. Add removeItem and setQuantity to the store. Prices are integer cents.")
    s.tool(None, "edit", {"path": "src/store/cart.ts",
                          "oldText": "  addItem: (item) => set((s) => ({ items: [...s.items, item] })),",
                          "newText": "  addItem: (item) => set((s) => ({ items: [...s.items, item] })),\n"
                                     "  removeItem: (id) => set((s) => ({ items: s.items.filter((i) => i.id !== id) })),\n"
                                     "  setQuantity: (id, quantity) => set((s) => ({ items: s.items.map((i) => (i.id === id ? { ...i, quantity } : i)) })),"},
           "Successfully replaced text in src/store/cart.ts.")
    s.assistant("Both actions are in the store. Should an item whose quantity reaches 0 be removed, "
                "or kept greyed out?")
    # pi kept the question verbatim and summarized everything before it.
    kept = s.parent
    s.compaction(PI_SUMMARY, kept, read_files=["src/App.tsx", "src/main.tsx"],
                 modified_files=["src/components/CartDrawer.tsx", "src/store/cart.ts"])

    s.user("continue with the stepper")
    s.tool("I'll write the stepper as a controlled component.", "write",
           {"path": "src/components/QuantityStepper.tsx",
            "content": "export function QuantityStepper({ value, onChange }: Props) {\n"
                       "  return (<div className=\"inline-flex items-center gap-2\">\n"
                       "    <button onClick={onChange(value - 1)}>−</button>\n    <span>{value}</span>\n"
                       "    <button onClick={() => onChange(value + 1)}>+</button>\n  </div>);\n}\n"},
           "Successfully wrote 611 bytes to src/components/QuantityStepper.tsx")
    s.tool(None, "edit", {"path": "src/components/CartDrawer.tsx",
                          "oldText": "<span>{item.quantity}</span>",
                          "newText": "<QuantityStepper value={item.quantity} onChange={(q) => setQuantity(item.id, q)} />"},
           "Successfully replaced text in src/components/CartDrawer.tsx.")
    s.tool(None, "write", {"path": "src/store/cart.test.ts",
                           "content": "describe('setQuantity', () => {\n  it('clamps at zero', () => {\n    useCart.getState().setQuantity('a', -1);\n    expect(useCart.getState().items[0].quantity).toBe(0);\n  });\n});\n"},
           "Successfully wrote 402 bytes to src/store/cart.test.ts")
    s.tool(None, "bash", {"command": "npx vitest run"},
           " RUN  v1.6.0 /home/dev/shopfront\n\n"
           " ❯ src/store/cart.test.ts (1)\n   ❯ setQuantity (1)\n     × clamps at zero\n\n"
           "⎯⎯⎯⎯⎯⎯⎯ Failed Tests 1 ⎯⎯⎯⎯⎯⎯⎯\n\n"
           " FAIL  src/store/cart.test.ts > setQuantity > clamps at zero\n"
           "AssertionError: expected -1 to be +0 // Object.is equality\n"
           " ❯ src/store/cart.test.ts:4:52\n\n"
           " Test Files  1 failed (1)\n      Tests  1 failed (1)\n\nCommand exited with code 1",
           True)
    s.tool("`setQuantity` stores whatever it gets. I'll clamp it with `Math.max(0, quantity)`.",
           "edit", {"path": "src/store/cart.ts", "oldText": "{ ...i, quantity }",
                    "newText": "{ ...i, quantity: Math.max(0, quantity) }"},
           "Successfully replaced text in src/store/cart.ts.")
    s.tool(None, "bash", {"command": "npx vitest run"},
           " ✓ src/store/cart.test.ts (1)\n\n Test Files  1 passed (1)\n      Tests  1 passed (1)\n")
    s.assistant("The stepper is in the drawer and `setQuantity` clamps at zero; the test passes.")

    s.user("the drawer crashes as soon as I open it:\n\n"
           "```\nUncaught Error: Too many re-renders. React limits the number of renders to "
           "prevent an infinite loop.\n    at renderWithHooks (react-dom.development.js:16305:19)\n"
           "    at QuantityStepper (QuantityStepper.tsx:3:5)\n    at CartDrawer (CartDrawer.tsx:18:9)\n```\n\n"
           "and to answer your question: when the quantity hits 0 the item gets removed from the "
           "cart, no greyed-out rows.")
    s.tool("The minus button calls `onChange(value - 1)` during render instead of passing a "
           "function, which sets state on every render. The fix is an arrow function.", "edit",
           {"path": "src/components/QuantityStepper.tsx",
            "oldText": "onClick={onChange(value - 1)}",
            "newText": "onClick={() => onChange(value - 1)}"},
           "Successfully replaced text in src/components/QuantityStepper.tsx.")
    s.tool("Now quantity 0 removes the item.", "edit",
           {"path": "src/store/cart.ts",
            "oldText": "setQuantity: (id, quantity) => set((s) => ({ items: s.items.map((i) => (i.id === id ? { ...i, quantity: Math.max(0, quantity) } : i)) })),",
            "newText": "setQuantity: (id, quantity) => set((s) => ({ items: quantity <= 0 ? s.items.filter((i) => i.id !== id) : s.items.map((i) => (i.id === id ? { ...i, quantity } : i)) })),"},
           "Successfully replaced text in src/store/cart.ts.")
    s.tool(None, "edit", {"path": "src/store/cart.test.ts",
                          "oldText": "it('clamps at zero', () => {\n    useCart.getState().setQuantity('a', -1);\n    expect(useCart.getState().items[0].quantity).toBe(0);",
                          "newText": "it('removes the item at zero', () => {\n    useCart.getState().setQuantity('a', 0);\n    expect(useCart.getState().items).toHaveLength(0);"},
           "Successfully replaced text in src/store/cart.test.ts.")
    s.tool(None, "bash", {"command": "npx vitest run"},
           " ✓ src/store/cart.test.ts (1)\n\n Test Files  1 passed (1)\n      Tests  1 passed (1)\n")
    s.assistant("Fixed the render loop in `QuantityStepper`; quantity 0 now removes the item, with "
                "the test updated.")

    s.user("now install framer-motion for the slide-in animation")
    s.tool(None, "bash", {"command": "npm install framer-motion"},
           "npm ERR! code ERESOLVE\nnpm ERR! ERESOLVE unable to resolve dependency tree\nnpm ERR!\n"
           "npm ERR! While resolving: shopfront@0.3.0\nnpm ERR! Found: react@18.2.0\n"
           "npm ERR! node_modules/react\nnpm ERR!   react@\"^18.2.0\" from the root project\nnpm ERR!\n"
           "npm ERR! Could not resolve dependency:\nnpm ERR! peer react@\"^19.0.0\" from framer-motion@12.0.0\n\n"
           "Command exited with code 1", True)
    s.assistant("framer-motion 12 wants React 19. I'll install it with `--legacy-peer-deps` to skip "
                "the peer check.",
                [("bash", {"command": "npm install framer-motion --legacy-peer-deps"})])
    s.assistant(None, stop="aborted", error="Request was aborted")
    s.user("no, don't force peer deps. we don't need a library for this anyway, do the slide with "
           "a tailwind transition and respect prefers-reduced-motion")
    s.tool("Right. I'll animate with Tailwind's `transition-transform` and `translate-x-full`, "
           "and `motion-reduce:transition-none` for reduced motion.", "edit",
           {"path": "src/components/CartDrawer.tsx",
            "oldText": "className=\"fixed inset-y-0 right-0 w-full sm:w-[420px]\"",
            "newText": "className={`fixed inset-y-0 right-0 w-full sm:w-[420px] transition-transform duration-300 motion-reduce:transition-none ${open ? 'translate-x-0' : 'translate-x-full'}`}"},
           "Successfully replaced text in src/components/CartDrawer.tsx.")
    s.tool(None, "bash", {"command": "npm run build"},
           "> shopfront@0.3.0 build\n> tsc -b && vite build\n\n"
           "vite v5.2.11 building for production...\n✓ 48 modules transformed.\n"
           "dist/index.html                  0.46 kB │ gzip:  0.30 kB\n"
           "dist/assets/index-4f1c2a.js    148.20 kB │ gzip: 47.91 kB\n✓ built in 1.21s\n")
    s.assistant("The drawer slides in with a Tailwind transition (none under reduced motion); no "
                "new dependency, and the build passes.")

    s.user("delete the old LegacyCart component and its test, the drawer replaces it")
    s.tool(None, "bash", {"command": "git rm src/components/LegacyCart.tsx src/components/LegacyCart.test.tsx"},
           "rm 'src/components/LegacyCart.tsx'\nrm 'src/components/LegacyCart.test.tsx'\n")
    s.tool(None, "bash", {"command": "npx tsc --noEmit"},
           "src/App.tsx(2,28): error TS2307: Cannot find module './components/LegacyCart' or its "
           "corresponding type declarations.\n\nCommand exited with code 2", True)
    s.tool(None, "edit", {"path": "src/App.tsx",
                          "oldText": "import { LegacyCart } from './components/LegacyCart';\n",
                          "newText": "import { CartDrawer } from './components/CartDrawer';\n"},
           "Successfully replaced text in src/App.tsx.")
    s.tool(None, "edit", {"path": "src/App.tsx", "oldText": "<LegacyCart />", "newText": "<CartDrawer />"},
           "Successfully replaced text in src/App.tsx.")
    s.tool(None, "bash", {"command": "npx tsc --noEmit"}, "")
    s.tool(None, "bash", {"command": "npm run lint"},
           "> shopfront@0.3.0 lint\n> eslint .\n\n"
           "/home/dev/shopfront/src/components/CartDrawer.tsx\n"
           "  23:9  error  'total' is assigned a value but never used  @typescript-eslint/no-unused-vars\n\n"
           "✖ 1 problem (1 error, 0 warnings)\n\nCommand exited with code 1", True)
    s.tool("`total` is left over from the old footer; the checkout button shows the subtotal.",
           "edit", {"path": "src/components/CartDrawer.tsx",
                    "oldText": "  const total = items.reduce((sum, i) => sum + i.priceCents * i.quantity, 0);\n",
                    "newText": ""},
           "Successfully replaced text in src/components/CartDrawer.tsx.")
    s.tool(None, "bash", {"command": "npm run lint"}, "> shopfront@0.3.0 lint\n> eslint .\n\n")
    s.assistant("LegacyCart and its test are gone, App renders the drawer, tsc and lint are clean.")

    s.user("looks good. last thing: show a toast \"Added to cart\" when an item is added, with "
           "the existing useToast hook from src/hooks/useToast.ts. it has to disappear within 3 "
           "seconds.")
    s.tool(None, "read", {"path": "src/hooks/useToast.ts"},
           "export function useToast() {\n  return { show: (text: string, options?: { durationMs?: number }) => { /* … */ } };\n}\n")
    s.tool("I'll call `show('Added to cart', { durationMs: 2500 })` from the add button.", "edit",
           {"path": "src/components/AddToCartButton.tsx",
            "oldText": "onClick={() => addItem(product)}",
            "newText": "onClick={() => { addItem(product); toast.show('Added to cart', { durationMs: 2500 }); }}"},
           "Successfully replaced text in src/components/AddToCartButton.tsx.")
    s.assistant("The add button shows \"Added to cart\" for 2.5 s. Next, I'll add a vitest for "
                "the toast with fake timers.")
    return s


def python_pipeline():
    s = Session("python-pipeline", "/home/dev/etl", "claude-opus-4-1")
    s.user("the nightly ETL job crashed, here's the log from airflow:\n\n"
           "[2024-05-02, 02:00:13 UTC] {taskinstance.py:1851} ERROR - Task failed with exception\n"
           "Traceback (most recent call last):\n"
           "  File \"/opt/etl/pipeline/transform.py\", line 88, in normalize_orders\n"
           "    df[\"customer_id\"] = df[\"customer_id\"].astype(\"int64\")\n"
           "  File \"/opt/etl/.venv/lib/python3.11/site-packages/pandas/core/generic.py\", line 6534, in astype\n"
           "    new_data = self._mgr.astype(dtype=dtype, copy=copy, errors=errors)\n"
           "pandas.errors.IntCastingNaNError: Cannot convert non-finite values (NA or inf) to integer\n\n"
           "fix it. the job must stay idempotent: rerunning a date must never duplicate rows.")
    s.tool("Let me read the transform step.", "read", {"path": "pipeline/transform.py"},
           "import pandas as pd\n\n\ndef normalize_orders(df: pd.DataFrame) -> pd.DataFrame:\n"
           "    df = df.rename(columns=str.lower)\n"
           "    df[\"customer_id\"] = df[\"customer_id\"].astype(\"int64\")\n"
           "    df[\"amount_cents\"] = (df[\"amount\"] * 100).round().astype(\"int64\")\n    return df\n")
    s.tool(None, "bash", {"command": "grep -rn customer_id pipeline/ | head -20"},
           "pipeline/transform.py:6:    df[\"customer_id\"] = df[\"customer_id\"].astype(\"int64\")\n"
           "pipeline/load.py:27:    df[\"customer_id\"] = df[\"customer_id\"].fillna(0)\n")
    s.tool("Let me reproduce it on the failing date.", "bash",
           {"command": "python -m pipeline.run --date 2024-05-01 --dry-run"},
           "2024-05-02 10:14:02 INFO extract: 18234 rows from orders_export_2024-05-01.csv\n"
           "Traceback (most recent call last):\n"
           "  File \"<frozen runpy>\", line 198, in _run_module_as_main\n"
           "  File \"/home/dev/etl/pipeline/run.py\", line 41, in <module>\n    main()\n"
           "  File \"/home/dev/etl/pipeline/transform.py\", line 6, in normalize_orders\n"
           "    df[\"customer_id\"] = df[\"customer_id\"].astype(\"int64\")\n"
           "pandas.errors.IntCastingNaNError: Cannot convert non-finite values (NA or inf) to integer\n\n"
           "Command exited with code 1", True)
    s.tool(None, "bash", {"command": "python -c \"import pandas as pd; df = pd.read_csv('data/raw/orders_export_2024-05-01.csv'); print(df.customer_id.isna().sum())\""},
           "37\n")
    s.tool("37 orders have no customer: guest checkouts. The fix is pandas' nullable `Int64` dtype "
           "instead of `int64`, so guest orders keep a missing customer rather than crashing.",
           "edit", {"path": "pipeline/transform.py",
                    "oldText": "df[\"customer_id\"].astype(\"int64\")",
                    "newText": "df[\"customer_id\"].astype(\"Int64\")"},
           "Successfully replaced text in pipeline/transform.py.")
    s.tool(None, "bash", {"command": "python -m pipeline.run --date 2024-05-01 --dry-run"},
           "2024-05-02 10:16:40 INFO extract: 18234 rows from orders_export_2024-05-01.csv\n"
           "2024-05-02 10:16:41 INFO transform: 18234 rows\n"
           "2024-05-02 10:16:41 INFO load: would upsert 18234 rows into staging.orders (dry run)\n")
    s.tool(None, "bash", {"command": "python -m pytest -q"},
           "..........................................                               [100%]\n"
           "42 passed in 3.10s\n")
    s.assistant("The transform uses the nullable `Int64` dtype now; the failing date runs through "
                "(dry run) and all 42 tests pass.")

    s.user("good. guest orders have to end up with customer_id NULL in the warehouse, not 0. add "
           "a test for it")
    s.tool("I'll add a test that loads a guest order and checks the customer stays missing.",
           "edit", {"path": "tests/test_load.py", "oldText": "def test_upsert_is_idempotent(",
                    "newText": "def test_guest_orders_keep_null_customer(tmp_warehouse):\n"
                               "    load_orders(guest_orders(), tmp_warehouse)\n"
                               "    assert tmp_warehouse.fetch_one('select customer_id from orders') is None\n\n\n"
                               "def test_upsert_is_idempotent("},
           "Successfully replaced text in tests/test_load.py.")
    s.tool(None, "bash", {"command": "python -m pytest -q tests/test_load.py"},
           "...F.\n"
           "=================================== FAILURES ===================================\n"
           "___________________ test_guest_orders_keep_null_customer ____________________\n\n"
           "    def test_guest_orders_keep_null_customer(tmp_warehouse):\n"
           "        load_orders(guest_orders(), tmp_warehouse)\n"
           ">       assert tmp_warehouse.fetch_one('select customer_id from orders') is None\n"
           "E       assert 0 is None\n\n"
           "tests/test_load.py:31: AssertionError\n"
           "=========================== short test summary info ============================\n"
           "FAILED tests/test_load.py::test_guest_orders_keep_null_customer - assert 0 is None\n"
           "1 failed, 4 passed in 0.61s\n\nCommand exited with code 1", True)
    s.tool("The loader replaces missing customers with 0 (`fillna(0)` in pipeline/load.py). I'll "
           "drop that line so a missing customer is written as NULL.", "edit",
           {"path": "pipeline/load.py",
            "oldText": "    df[\"customer_id\"] = df[\"customer_id\"].fillna(0)\n", "newText": ""},
           "Successfully replaced text in pipeline/load.py.")
    s.tool(None, "bash", {"command": "python -m pytest -q"},
           "...........................................                              [100%]\n"
           "43 passed in 3.22s\n")
    s.assistant("Guest orders load with a NULL customer_id now; the new test and the other 42 pass.")

    s.user("Now switch the staging output from CSV to parquet. use pyarrow, it's already in "
           "requirements.txt")
    s.tool(None, "read", {"path": "pipeline/load.py"},
           "import os\nimport pandas as pd\n\n\ndef write_staging(df: pd.DataFrame, day: str) -> str:\n"
           "    path = os.path.join(STAGING_DIR, f\"orders_{day}.csv\")\n    df.to_csv(path, index=False)\n    return path\n")
    s.tool("I'll write `orders_<day>.parquet` with `to_parquet(engine=\"pyarrow\")`.", "edit",
           {"path": "pipeline/load.py",
            "oldText": "f\"orders_{day}.csv\")\n    df.to_csv(path, index=False)",
            "newText": "f\"orders_{day}.parquet\")\n    df.to_parquet(path, engine=\"pyarrow\", index=False)"},
           "Successfully replaced text in pipeline/load.py.")
    s.tool(None, "bash", {"command": "python -m pipeline.run --date 2024-05-01 --dry-run"},
           "2024-05-02 10:31:09 INFO extract: 18234 rows from orders_export_2024-05-01.csv\n"
           "2024-05-02 10:31:10 INFO transform: 18234 rows\n"
           "Traceback (most recent call last):\n"
           "  File \"/home/dev/etl/pipeline/load.py\", line 8, in write_staging\n"
           "    df.to_parquet(path, engine=\"pyarrow\", index=False)\n"
           "ImportError: Unable to find a usable engine; tried using: 'pyarrow'.\n"
           "A suitable version of pyarrow is required for parquet support.\n\n"
           "Command exited with code 1", True)
    s.tool(None, "bash", {"command": "pip show pyarrow"},
           "WARNING: Package(s) not found: pyarrow\n\nCommand exited with code 1", True)
    s.tool("pyarrow is in requirements.txt but not installed in this virtualenv. I'll install the "
           "requirements.", "bash", {"command": "pip install -r requirements.txt"},
           "Requirement already satisfied: pandas==2.2.2 in ./.venv/lib/python3.11/site-packages\n"
           "Collecting pyarrow==16.0.0\n  Using cached pyarrow-16.0.0-cp311-cp311-manylinux_2_28_x86_64.whl (40.8 MB)\n"
           "Installing collected packages: pyarrow\nSuccessfully installed pyarrow-16.0.0\n")
    s.tool(None, "bash", {"command": "python -m pipeline.run --date 2024-05-01 --dry-run"},
           "2024-05-02 10:33:51 INFO extract: 18234 rows from orders_export_2024-05-01.csv\n"
           "2024-05-02 10:33:52 INFO transform: 18234 rows\n"
           "2024-05-02 10:33:52 INFO load: wrote staging/orders_2024-05-01.parquet; would upsert 18234 rows (dry run)\n")
    s.assistant("Staging is written as parquet through pyarrow (it was missing from the virtualenv, "
                "now installed from requirements.txt).")

    s.user("the loader file is getting big. move pipeline/load.py to pipeline/loaders/warehouse.py "
           "and fix the imports")
    s.tool(None, "bash", {"command": "mkdir -p pipeline/loaders && mv pipeline/load.py pipeline/loaders/warehouse.py && touch pipeline/loaders/__init__.py"}, "")
    s.tool(None, "bash", {"command": "grep -rln 'pipeline.load import' --include=*.py ."},
           "./pipeline/run.py\n./tests/test_load.py\n")
    s.tool(None, "bash", {"command": "sed -i 's/from pipeline.load import/from pipeline.loaders.warehouse import/' pipeline/run.py tests/test_load.py"}, "")
    s.tool(None, "bash", {"command": "python -m pytest -q"},
           "...........................................                              [100%]\n"
           "43 passed in 3.19s\n")
    s.tool(None, "bash", {"command": "ruff check pipeline"},
           "pipeline/loaders/warehouse.py:1:8: F401 [*] `os` imported but unused\n"
           "Found 1 error.\n[*] 1 fixable with the `--fix` option.\n\nCommand exited with code 1",
           True)
    s.tool("`os` is no longer used after the path change; I'll use pathlib throughout.", "edit",
           {"path": "pipeline/loaders/warehouse.py", "oldText": "import os\nimport pandas as pd\n",
            "newText": "from pathlib import Path\n\nimport pandas as pd\n"},
           "Successfully replaced text in pipeline/loaders/warehouse.py.")
    s.tool(None, "bash", {"command": "ruff check pipeline && mypy pipeline"},
           "All checks passed!\n"
           "pipeline/loaders/warehouse.py:7: error: Argument 1 to \"Path\" has incompatible type "
           "\"str | None\"; expected \"str | PathLike[str]\"  [arg-type]\n"
           "Found 1 error in 1 file (checked 9 source files)\n\nCommand exited with code 1", True)
    s.tool("`STAGING_DIR` comes from `os.environ.get`, so it can be None. I'll read it once with "
           "a clear error when ETL_STAGING_DIR is unset.", "edit",
           {"path": "pipeline/loaders/warehouse.py",
            "oldText": "STAGING_DIR = os.environ.get(\"ETL_STAGING_DIR\")",
            "newText": "STAGING_DIR = Path(require_env(\"ETL_STAGING_DIR\"))"},
           "Successfully replaced text in pipeline/loaders/warehouse.py.")
    s.tool(None, "bash", {"command": "ruff check pipeline && mypy pipeline"},
           "All checks passed!\nSuccess: no issues found in 9 source files\n")
    s.assistant("The loader lives in `pipeline/loaders/warehouse.py`; imports are fixed, and ruff "
                "and mypy are clean.")

    s.user("run the full backfill for april")
    s.assistant("Starting the April backfill.",
                [("bash", {"command": "python -m pipeline.backfill --start 2024-04-01 --end 2024-04-30"})])
    s.assistant(None, stop="aborted", error="Request was aborted")
    s.user("stop, that writes to prod. never run backfills from here, only with --dry-run.")
    s.tool("Understood, dry run only.", "bash",
           {"command": "python -m pipeline.backfill --start 2024-04-01 --end 2024-04-30 --dry-run"},
           "2024-05-02 11:02:17 INFO backfill: 30 days, 541 220 rows, 0 duplicates (dry run)\n")
    s.assistant("The April backfill dry run covers 30 days and 541,220 rows with 0 duplicates; "
                "nothing was written.")

    s.user("ok, last thing for today: write docs/pipeline.md describing the stages "
           "(extract, transform, load) and the env vars ETL_DB_URL and ETL_STAGING_DIR. no more "
           "than a page.")
    s.tool(None, "read", {"path": "pipeline/run.py"},
           "from pipeline.extract import extract_orders\nfrom pipeline.transform import normalize_orders\n"
           "from pipeline.loaders.warehouse import load_orders, write_staging\n")
    s.tool("I'll write the page from the three stages in run.py.", "write",
           {"path": "docs/pipeline.md",
            "content": "# Orders pipeline\n\nThree stages run nightly for one date: extract, transform, load.\n\n"
                       "| variable | meaning |\n|---|---|\n| `ETL_DB_URL` | warehouse connection |\n"
                       "| `ETL_STAGING_DIR` | where the parquet files go |\n"},
           "Successfully wrote 1876 bytes to docs/pipeline.md")
    s.assistant("Wrote docs/pipeline.md (stages and both env vars, under a page). Next, I'll link "
                "it from the README's Operations section.")
    return s


def java_gradle():
    s = Session("java-gradle", "/home/dev/orders-service", "gpt-5")
    s.user("POST /orders returns a 500 when the sku is missing instead of a 400. here's the log:\n\n"
           "2026-05-03 14:22:07.311 ERROR 4182 --- [nio-8080-exec-3] o.a.c.c.C.[.[.[/].[dispatcherServlet]    : Servlet.service() threw exception\n"
           "java.lang.NullPointerException: Cannot invoke \"String.length()\" because \"sku\" is null\n"
           "\tat com.acme.orders.OrderService.validate(OrderService.java:57)\n"
           "\tat com.acme.orders.OrderController.create(OrderController.java:31)\n\n"
           "please make it a proper 400 with a problem+json body. we're on Java 17, so no newer language features.")
    [service, controller] = s.assistant(
        None, [("read", {"path": "src/main/java/com/acme/orders/OrderService.java"}),
               ("read", {"path": "src/main/java/com/acme/orders/OrderController.java"})],
        thinking="validate dereferences sku; the controller has no exception handler.")
    s.result(service, "read",
             "public class OrderService {\n  void validate(OrderRequest request) {\n    String sku = request.sku();\n"
             "    if (sku.length() > 32) throw new IllegalArgumentException(\"sku too long\");\n  }\n}\n")
    s.result(controller, "read",
             "@RestController\nclass OrderController {\n  @PostMapping(\"/orders\")\n"
             "  ResponseEntity<Order> create(@RequestBody OrderRequest request) { service.validate(request); … }\n}\n")
    s.tool("`validate` assumes a sku. I'll add a `@Valid` constraint on `OrderRequest.sku` and a "
           "`@RestControllerAdvice` that turns validation errors into problem+json 400s.", "edit",
           {"path": "src/main/java/com/acme/orders/OrderRequest.java",
            "oldText": "record OrderRequest(String sku, int quantity) {}",
            "newText": "record OrderRequest(@NotBlank @Size(max = 32) String sku, @Positive int quantity) {}"},
           "Successfully replaced text in src/main/java/com/acme/orders/OrderRequest.java.")
    s.tool(None, "write", {"path": "src/main/java/com/acme/orders/ProblemHandler.java",
                           "content": "@RestControllerAdvice\nclass ProblemHandler {\n  @ExceptionHandler(MethodArgumentNotValidException.class)\n"
                                      "  ProblemDetail invalid(MethodArgumentNotValidException e) { … }\n}\n"},
           "Successfully wrote 1210 bytes to src/main/java/com/acme/orders/ProblemHandler.java")
    s.tool(None, "bash", {"command": "./gradlew test"},
           "> Task :compileJava FAILED\n"
           "/home/dev/orders-service/src/main/java/com/acme/orders/OrderRequest.java:3: error: cannot find symbol\n"
           "record OrderRequest(@NotBlank @Size(max = 32) String sku, @Positive int quantity) {}\n"
           "                     ^\n  symbol:   class NotBlank\n  location: package com.acme.orders\n"
           "1 error\n\nFAILURE: Build failed with an exception.\n\n* What went wrong:\n"
           "Execution failed for task ':compileJava'.\n> Compilation failed; see the compiler error output for details.\n\n"
           "BUILD FAILED in 4s\n\nCommand exited with code 1", True)
    s.tool("The validation annotations need `spring-boot-starter-validation`. I'll add it to "
           "build.gradle.", "edit",
           {"path": "build.gradle", "oldText": "implementation 'org.springframework.boot:spring-boot-starter-web'",
            "newText": "implementation 'org.springframework.boot:spring-boot-starter-web'\n    implementation 'org.springframework.boot:spring-boot-starter-validation'"},
           "Successfully replaced text in build.gradle.")
    s.user("hold on, I'd rather not pull in another starter just for this. do the null check by "
           "hand in validate and throw our own InvalidOrderException.")
    s.tool("Okay, no new dependency. I'll revert build.gradle and the annotations, and throw "
           "`InvalidOrderException` from `validate`.", "edit",
           {"path": "build.gradle", "oldText": "\n    implementation 'org.springframework.boot:spring-boot-starter-validation'",
            "newText": ""},
           "Successfully replaced text in build.gradle.")
    s.tool(None, "edit", {"path": "src/main/java/com/acme/orders/OrderRequest.java",
                          "oldText": "record OrderRequest(@NotBlank @Size(max = 32) String sku, @Positive int quantity) {}",
                          "newText": "record OrderRequest(String sku, int quantity) {}"},
           "Successfully replaced text in src/main/java/com/acme/orders/OrderRequest.java.")
    s.tool(None, "edit", {"path": "src/main/java/com/acme/orders/OrderService.java",
                          "oldText": "    String sku = request.sku();\n",
                          "newText": "    String sku = request.sku();\n    if (sku == null || sku.isBlank()) throw new InvalidOrderException(\"sku is required\");\n"},
           "Successfully replaced text in src/main/java/com/acme/orders/OrderService.java.")
    s.tool(None, "write", {"path": "src/main/java/com/acme/orders/InvalidOrderException.java",
                           "content": "public class InvalidOrderException extends RuntimeException { … }\n"},
           "Successfully wrote 240 bytes to src/main/java/com/acme/orders/InvalidOrderException.java")
    s.tool(None, "edit", {"path": "src/main/java/com/acme/orders/ProblemHandler.java",
                          "oldText": "@ExceptionHandler(MethodArgumentNotValidException.class)",
                          "newText": "@ExceptionHandler(InvalidOrderException.class)"},
           "Successfully replaced text in src/main/java/com/acme/orders/ProblemHandler.java.")
    s.tool(None, "bash", {"command": "./gradlew test"},
           "> Task :test\n\nOrderControllerTest > missingSkuIsBadRequest() FAILED\n"
           "    org.opentest4j.AssertionFailedError: expected: <400> but was: <500>\n"
           "        at app//com.acme.orders.OrderControllerTest.missingSkuIsBadRequest(OrderControllerTest.java:44)\n\n"
           "12 tests completed, 1 failed\n\nFAILURE: Build failed with an exception.\n\nBUILD FAILED in 9s\n\n"
           "Command exited with code 1", True)
    s.tool("Still a 500: the advice class is package-private and not picked up by the `@WebMvcTest` "
           "slice. I'll make `ProblemHandler` public and import it in the test with `@Import`.", "edit",
           {"path": "src/main/java/com/acme/orders/ProblemHandler.java",
            "oldText": "class ProblemHandler {", "newText": "public class ProblemHandler {"},
           "Successfully replaced text in src/main/java/com/acme/orders/ProblemHandler.java.")
    s.tool(None, "edit", {"path": "src/test/java/com/acme/orders/OrderControllerTest.java",
                          "oldText": "@WebMvcTest(OrderController.class)",
                          "newText": "@WebMvcTest(OrderController.class)\n@Import(ProblemHandler.class)"},
           "Successfully replaced text in src/test/java/com/acme/orders/OrderControllerTest.java.")
    s.tool(None, "bash", {"command": "./gradlew test"},
           "> Task :test\n\nBUILD SUCCESSFUL in 11s\n5 actionable tasks: 2 executed, 3 up-to-date\n")
    s.assistant("Missing skus now get a 400 problem+json from `ProblemHandler`; all 12 tests pass.")

    s.user("cool. also the package name is wrong, it should be com.acme.ordering not "
           "com.acme.orders. move the whole package. make sure the tests still pass afterwards")
    s.tool(None, "bash", {"command": "git mv src/main/java/com/acme/orders src/main/java/com/acme/ordering && git mv src/test/java/com/acme/orders src/test/java/com/acme/ordering"}, "")
    s.tool(None, "bash", {"command": "grep -rl 'com.acme.orders' src | xargs sed -i 's/com\\.acme\\.orders/com.acme.ordering/g'"}, "")
    s.tool(None, "bash", {"command": "./gradlew test"},
           "> Task :test\n\nBUILD SUCCESSFUL in 12s\n5 actionable tasks: 5 executed\n")
    s.assistant("Moved the package to `com.acme.ordering` (main and test) and updated every "
                "reference; the build and all tests pass.")

    s.bash_execution("./gradlew bootRun --args='--spring.profiles.active=local'",
                     "  .   ____          _            __ _ _\n"
                     "2026-05-03 15:02:44.120 ERROR 5120 --- [           main] o.s.b.SpringApplication : Application run failed\n"
                     "org.springframework.beans.factory.UnsatisfiedDependencyException: Error creating bean with name 'orderRepository'\n"
                     "Caused by: org.postgresql.util.PSQLException: Connection to localhost:5432 refused.\n", 1)
    s.user("bootRun fails locally, see above. the local profile should use the H2 in-memory db, "
           "not postgres. don't touch application-prod.yml.")
    s.tool(None, "read", {"path": "src/main/resources/application-local.yml"},
           "spring:\n  datasource:\n    url: jdbc:postgresql://localhost:5432/orders\n")
    s.tool("The local profile still points at Postgres. I'll switch it to H2 in memory.", "edit",
           {"path": "src/main/resources/application-local.yml",
            "oldText": "    url: jdbc:postgresql://localhost:5432/orders\n",
            "newText": "    url: jdbc:h2:mem:orders;MODE=PostgreSQL\n    driver-class-name: org.h2.Driver\n"},
           "Successfully replaced text in src/main/resources/application-local.yml.")
    s.tool(None, "bash", {"command": "./gradlew bootRun --args='--spring.profiles.active=local' & sleep 20; curl -s localhost:8080/actuator/health; kill %1"},
           "{\"status\":\"UP\"}")
    s.assistant("The local profile runs on H2 now; the app starts and /actuator/health is UP.")

    s.user("last one for today: add a GET /orders?status= filter, paginated, page size 50 max. "
           "and write a test for the page size cap")
    s.tool("I'll add a `status` request parameter with a `Pageable` capped at 50.", "edit",
           {"path": "src/main/java/com/acme/ordering/OrderController.java",
            "oldText": "  @PostMapping(\"/orders\")",
            "newText": "  @GetMapping(\"/orders\")\n  Page<Order> list(@RequestParam Optional<OrderStatus> status, @PageableDefault(size = 20) Pageable page) { … }\n\n  @PostMapping(\"/orders\")"},
           "Successfully replaced text in src/main/java/com/acme/ordering/OrderController.java.")
    s.tool(None, "edit", {"path": "src/test/java/com/acme/ordering/OrderControllerTest.java",
                          "oldText": "  @Test\n  void missingSkuIsBadRequest()",
                          "newText": "  @Test\n  void pageSizeIsCappedAt50() throws Exception {\n    mvc.perform(get(\"/orders?size=500\")).andExpect(jsonPath(\"$.size\").value(50));\n  }\n\n  @Test\n  void missingSkuIsBadRequest()"},
           "Successfully replaced text in src/test/java/com/acme/ordering/OrderControllerTest.java.")
    s.tool(None, "bash", {"command": "./gradlew test --tests '*OrderControllerTest'"},
           "> Task :test\n\nOrderControllerTest > pageSizeIsCappedAt50() FAILED\n"
           "    java.lang.AssertionError: JSON path \"$.size\" expected:<50> but was:<500>\n"
           "        at app//com.acme.ordering.OrderControllerTest.pageSizeIsCappedAt50(OrderControllerTest.java:52)\n\n"
           "13 tests completed, 1 failed\n\nBUILD FAILED in 8s\n\nCommand exited with code 1", True)
    s.assistant("The cap is not applied: `@PageableDefault` only sets the default size. Next, I'll "
                "set `spring.data.web.pageable.max-page-size: 50` in application.yml and rerun the "
                "controller tests.")
    return s


if __name__ == "__main__":
    go_service().write("go-service.jsonl")
    react_vite().write("react-vite.jsonl")
    python_pipeline().write("python-pipeline.jsonl")
    java_gradle().write("java-gradle.jsonl")
