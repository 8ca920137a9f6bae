package cluster

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// ServerOptions configure the embedded NATS server.
type ServerOptions struct {
	// Store is the directory of JetStream's files: the queue of units and the results,
	// which outlive the process (a coordinator restarted on the same store resumes).
	Store string
	// Listen is the address for clients, host:port; "" for 127.0.0.1 on a free port.
	// Only loopback addresses may go without a Token.
	Listen string
	// Token is the secret every client must present; "" for none (loopback only). It
	// gives a worker's rights only (workerPermissions): the coordinator in this process
	// connects with a secret of its own that never leaves it.
	Token string
}

// A Server is an embedded NATS server with JetStream.
type Server struct {
	ns    *server.Server
	url   string
	owner string // the coordinator's secret, with every right; "" without a token
}

// workerPermissions are what a worker may do on the embedded server (and what an
// external server's configuration should give it, docs/CLUSTER.md): take units from the
// workers' consumer and acknowledge them, publish results, and hear which passes are
// decided. It may not publish units, decisions, job control, the server's events or any
// other JetStream request (purging, deleting).
var workerPermissions = &server.Permissions{
	Publish: &server.SubjectPermission{Allow: []string{
		resultSubject + ">",
		deadSubject + ">", // a unit it cannot search, on its last delivery
		"$JS.API.CONSUMER.INFO." + unitsStream + "." + workersName,
		"$JS.API.CONSUMER.MSG.NEXT." + unitsStream + "." + workersName,
		"$JS.ACK." + unitsStream + "." + workersName + ".>",
	}},
	Subscribe: &server.SubjectPermission{Allow: []string{"_INBOX.>", cancelSubject + ">"}},
}

// tokenAuth admits the coordinator's secret with every right and the token with a
// worker's.
type tokenAuth struct {
	owner, worker string
	account       *server.Account
}

func (a *tokenAuth) Check(c server.ClientAuthentication) bool {
	o := c.GetOpts()
	secret := o.Token
	if secret == "" {
		secret = o.Password
	}
	switch {
	case subtle.ConstantTimeCompare([]byte(secret), []byte(a.owner)) == 1:
		c.RegisterUser(&server.User{Username: "coordinator", Account: a.account})
	case subtle.ConstantTimeCompare([]byte(secret), []byte(a.worker)) == 1:
		c.RegisterUser(&server.User{Username: "worker", Account: a.account, Permissions: workerPermissions})
	default:
		return false
	}
	return true
}

// ErrNeedsToken is returned for a server that would listen beyond loopback without a token.
var ErrNeedsToken = errors.New("cluster: a server listening beyond loopback needs a token")

// StartServer starts an embedded NATS server with JetStream on opt.Store, and waits until
// it takes connections.
func StartServer(opt ServerOptions) (*Server, error) {
	host, port := "127.0.0.1", -1
	if opt.Listen != "" {
		h, p, err := net.SplitHostPort(opt.Listen)
		if err != nil {
			return nil, fmt.Errorf("cluster: listen address %q: %w", opt.Listen, err)
		}
		if port, err = strconv.Atoi(p); err != nil || port < 0 || port > 65535 {
			return nil, fmt.Errorf("cluster: listen address %q: the port must be a number from 0 to 65535", opt.Listen)
		}
		if port == 0 {
			port = -1
		}
		host = h
	}
	if !Loopback(host) && opt.Token == "" {
		return nil, fmt.Errorf("%w (listening on %q)", ErrNeedsToken, host)
	}
	if opt.Store == "" {
		return nil, errors.New("cluster: the server needs a store directory")
	}
	if err := os.MkdirAll(opt.Store, 0o755); err != nil {
		return nil, fmt.Errorf("cluster: store: %w", err)
	}
	sopt := &server.Options{ServerName: "tilekit", Host: host, Port: port,
		JetStream: true, StoreDir: opt.Store, NoLog: true, NoSigs: true, MaxPayload: maxMessage}
	var auth *tokenAuth
	if opt.Token != "" {
		owner := make([]byte, 24)
		rand.Read(owner)
		auth = &tokenAuth{owner: hex.EncodeToString(owner), worker: opt.Token}
		sopt.CustomClientAuthentication = auth
	}
	ns, err := server.NewServer(sopt)
	if err != nil {
		return nil, fmt.Errorf("cluster: starting NATS: %w", err)
	}
	if auth != nil {
		auth.account = ns.GlobalAccount()
	}
	go ns.Start()
	if !ns.ReadyForConnections(20 * time.Second) {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, fmt.Errorf("cluster: NATS did not start on %s within 20s (is the port taken, or the store %s in use?)", net.JoinHostPort(host, strconv.Itoa(port)), opt.Store)
	}
	s := &Server{ns: ns, url: ns.ClientURL()}
	if auth != nil {
		s.owner = auth.owner
	}
	return s, nil
}

// URL is the address clients connect to (without the token).
func (s *Server) URL() string { return s.url }

// Close shuts the server down and waits until its store is closed.
func (s *Server) Close() {
	s.ns.Shutdown()
	s.ns.WaitForShutdown()
}

// Loopback reports whether host names only this machine ("", localhost or a loopback IP).
func Loopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Endpoint says where the NATS server is: an existing one (URL), or an embedded one.
type Endpoint struct {
	URL    string // nats://host:port of an existing server or cluster; "" to embed one
	Server ServerOptions
	Name   string // how the connection names itself to the server
	// Wait keeps trying to reach a server that is not up yet (a worker started before
	// its coordinator), rather than failing at once.
	Wait bool
}

// A Conn is a connection to the NATS server, with the embedded server it started, if any.
type Conn struct {
	*nats.Conn
	Server *Server // nil with an existing server
	extra  []*nats.Conn
	url    string
	e      Endpoint
}

// DefaultStore is the embedded server's store when none is given: tilekit/cluster in
// the user's cache directory.
func DefaultStore() (string, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("cluster: no store given, and no cache directory: %w", err)
	}
	return filepath.Join(cache, "tilekit", "cluster"), nil
}

// Connect connects to e.URL, or starts the embedded server (on DefaultStore when
// e.Server.Store is "") and connects to it.
func Connect(e Endpoint) (*Conn, error) {
	c := &Conn{e: e}
	url := e.URL
	if url == "" && e.Server.Store == "" {
		var err error
		if e.Server.Store, err = DefaultStore(); err != nil {
			return nil, err
		}
	}
	if url == "" {
		s, err := StartServer(e.Server)
		if err != nil {
			return nil, err
		}
		c.Server, url = s, s.URL()
	}
	owner := e
	if c.Server != nil && c.Server.owner != "" {
		owner.Server.Token = c.Server.owner // this process's own connection has every right
	}
	nc, err := c.dial(url, owner)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.Conn, c.url = nc, url
	return c, nil
}

func (c *Conn) dial(url string, e Endpoint) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name(e.Name), nats.MaxReconnects(-1)}
	if e.Wait {
		opts = append(opts, nats.RetryOnFailedConnect(true))
	}
	if e.Server.Token != "" {
		opts = append(opts, nats.Token(e.Server.Token))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("cluster: connecting to NATS at %s: %w", url, err)
	}
	return nc, nil
}

// Another opens one more connection to the same server (for a worker in this process),
// closed with c.
func (c *Conn) Another(name string) (*nats.Conn, error) {
	e := c.e
	e.Name = name
	nc, err := c.dial(c.url, e)
	if err == nil {
		c.extra = append(c.extra, nc)
	}
	return nc, err
}

// StartWorker runs w in this process on a connection of its own until ctx ends or stop
// is called; stop waits for it and returns its error.
func (c *Conn) StartWorker(ctx context.Context, w *Worker) (stop func() error, err error) {
	nc, err := c.Another(w.name() + " (local worker)")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- w.Run(ctx, nc) }()
	return func() error { cancel(); return <-done }, nil
}

// Close closes the connections, then shuts the embedded server down.
func (c *Conn) Close() {
	for _, nc := range c.extra {
		nc.Close()
	}
	if c.Conn != nil {
		c.Conn.Close()
	}
	if c.Server != nil {
		c.Server.Close()
	}
}
