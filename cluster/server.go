package cluster

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	neturl "net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
	// Token is the cluster's secret; "" for none (loopback only). A worker connects under
	// its name with its key (WorkerKey of the token and the name), or with the token
	// itself, and gets a worker's rights for that name only (workerPermissions). The
	// coordinator in this process connects with a secret of its own that never leaves it.
	Token string
}

// A Server is an embedded NATS server with JetStream.
type Server struct {
	ns    *server.Server
	url   string
	owner string // the coordinator's secret, with every right; "" without a token
}

// inboxPrefix is the prefix of the worker name's inbox: its replies and deliveries,
// which no other worker may read.
func inboxPrefix(name string) string { return "_INBOX_" + name }

// tokenAuth admits the coordinator's secret with every right, and a worker under its
// name with its key or the token, with that name's rights.
type tokenAuth struct {
	owner, token string
	account      *server.Account
}

func (a *tokenAuth) Check(c server.ClientAuthentication) bool {
	o := c.GetOpts()
	secret := o.Password
	if secret == "" {
		secret = o.Token
	}
	if subtle.ConstantTimeCompare([]byte(secret), []byte(a.owner)) == 1 {
		c.RegisterUser(&server.User{Username: "coordinator", Account: a.account})
		return true
	}
	if ValidName(o.Username) != nil {
		return false
	}
	key := WorkerKey(a.token, o.Username)
	if subtle.ConstantTimeCompare([]byte(secret), []byte(key)) == 1 || subtle.ConstantTimeCompare([]byte(secret), []byte(a.token)) == 1 {
		c.RegisterUser(&server.User{Username: o.Username, Account: a.account, Permissions: workerPermissions(o.Username)})
		return true
	}
	return false
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
		auth = &tokenAuth{owner: hex.EncodeToString(owner), token: opt.Token}
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
	// URL is nats://host:port of an existing server or cluster (comma-separated); ""
	// to embed one. Credentials in it (nats://TOKEN@host, nats://NAME:KEY@host) are
	// taken as Server.Token, or as User and Key.
	URL    string
	Server ServerOptions
	Name   string // how the connection names itself to the server
	// User is the connection's user on the server: for a worker, its name (its inbox
	// and the subjects it publishes to are named for it); for the coordinator, its user
	// on an external server, or "". Key is the user's password (WorkerKey, or what an
	// external server's configuration gives it); without one, the token is presented.
	User, Key string
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
	url, err := e.credentials()
	if err != nil {
		return nil, err
	}
	c := &Conn{e: e}
	if url == "" && e.Server.Store == "" {
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
	c.url = url
	main := c.e
	if c.Server != nil && c.Server.owner != "" && main.User == "" {
		main.Server.Token = c.Server.owner // this process's own connection has every right
	}
	nc, err := dial(url, main, main.User)
	if err != nil {
		c.Close()
		return nil, err
	}
	c.Conn = nc
	return c, nil
}

// credentials moves the credentials of e.URL into e, and returns the URL without them
// (a URL's credentials would override the options of the connection).
func (e *Endpoint) credentials() (string, error) {
	if e.URL == "" {
		return "", nil
	}
	urls := strings.Split(e.URL, ",")
	for i, u := range urls {
		p, err := neturl.Parse(strings.TrimSpace(u))
		if err != nil || p.Host == "" {
			return "", fmt.Errorf("cluster: %q is not a NATS URL such as nats://host:4222", redact(u))
		}
		if p.User == nil {
			continue
		}
		if pass, ok := p.User.Password(); ok {
			if e.User != "" && e.User != p.User.Username() {
				return "", fmt.Errorf("cluster: the worker's name is %q, but the URL's user is %q: a worker's name is its user on the server", e.User, p.User.Username())
			}
			e.User, e.Key = p.User.Username(), pass
		} else {
			e.Server.Token = p.User.Username()
		}
		p.User = nil
		urls[i] = p.String()
	}
	return strings.Join(urls, ","), nil
}

// dial connects to url with e's credentials, its inbox that of the worker name ("": the
// usual one).
func dial(url string, e Endpoint, name string) (*nats.Conn, error) {
	opts := []nats.Option{nats.Name(e.Name), nats.MaxReconnects(-1)}
	if e.Wait {
		opts = append(opts, nats.RetryOnFailedConnect(true))
	}
	if e.User != "" {
		opts = append(opts, nats.UserInfo(e.User, e.Key))
	}
	if e.Key == "" && e.Server.Token != "" {
		opts = append(opts, nats.Token(e.Server.Token))
	}
	if name != "" {
		opts = append(opts, nats.CustomInboxPrefix(inboxPrefix(name)))
	}
	nc, err := nats.Connect(url, opts...)
	if err != nil {
		return nil, fmt.Errorf("cluster: connecting to NATS at %s: %w", url, err)
	}
	return nc, nil
}

// Another opens one more connection to the same server, for the worker name in this
// process, closed with c. On the embedded server with a token, it connects as the worker
// does (under its name, with the token); elsewhere with this process's own credentials.
func (c *Conn) Another(name string) (*nats.Conn, error) {
	e := c.e
	e.Name = name + " (local worker)"
	if c.Server != nil && c.Server.owner != "" {
		e.User, e.Key = name, ""
	}
	nc, err := dial(c.url, e, name)
	if err == nil {
		c.extra = append(c.extra, nc)
	}
	return nc, err
}

// StartWorker runs w in this process on a connection of its own until ctx ends or stop
// is called; stop waits for it and returns its error.
func (c *Conn) StartWorker(ctx context.Context, w *Worker) (stop func() error, err error) {
	nc, err := c.Another(w.name())
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

// WorkerName is the name a worker connecting to url goes by: name if given, else the
// user of url's credentials (nats://NAME:KEY@host), else DefaultName.
func WorkerName(url, name string) (string, error) {
	user := ""
	for _, u := range strings.Split(url, ",") {
		if p, err := neturl.Parse(strings.TrimSpace(u)); err == nil && p.User != nil {
			if _, ok := p.User.Password(); ok {
				user = p.User.Username()
			}
		}
	}
	switch {
	case name != "" && user != "" && name != user:
		return "", fmt.Errorf("cluster: --name %s, but the URL's user is %s: a worker's name is its user on the server", name, user)
	case name == "":
		name = user
	}
	if name == "" {
		return DefaultName(), nil
	}
	return name, ValidName(name)
}
