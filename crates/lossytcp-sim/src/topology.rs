//! Nodes, directed links between them, and static routing.
//!
//! A scenario either lists link paths by hand (`forward` / `reverse`, the legacy form, which
//! works with or without nodes) or names nodes at the links' ends and lets flows and traffic
//! go "from node A to node B". Routes are computed once, before the run:
//!
//! * **fewest hops**, as ns-2's static routing with unit link costs (`rtProto Static`);
//! * among equally short paths, the one whose sequence of link indices is lexicographically
//!   smallest read from the source: at every node the lowest-numbered link that still lies
//!   on a shortest path. Deterministic and independent of the order nodes are named in.
//!   ns-2's own tie-break is an artefact of its route computation, so the ns-2 script writer
//!   refuses scenarios whose routes have ties (`python/lossytcp/ns2/script.py`).
//!
//! ACKs are routed on their own from the destination back to the source: on a topology of
//! duplex links (a link each way) that is the forward path reversed.

use std::collections::HashMap;
use std::collections::VecDeque;

use crate::config::{PathSpec, Scenario};
use crate::packet::LinkId;

/// Node names and the links between them.
#[derive(Clone, Debug)]
pub struct Topology {
    names: Vec<String>,
    index: HashMap<String, usize>,
    /// (from, to) node of each link.
    ends: Vec<(usize, usize)>,
    /// Outgoing links of each node, in increasing link index.
    out: Vec<Vec<LinkId>>,
    /// Incoming links of each node.
    inc: Vec<Vec<LinkId>>,
}

impl Topology {
    /// The topology of a scenario, or `None` when no link names its endpoints (legacy
    /// scenarios with hand-listed paths only).
    pub fn build(sc: &Scenario) -> Result<Option<Topology>, String> {
        let any_ends = sc.links.iter().any(|l| l.from.is_some() || l.to.is_some());
        if sc.nodes.is_empty() && !any_ends {
            return Ok(None);
        }
        let mut names: Vec<String> = Vec::new();
        let mut index = HashMap::new();
        for (i, n) in sc.nodes.iter().enumerate() {
            if index.insert(n.clone(), i).is_some() {
                return Err(format!("nodes: '{n}' is listed twice"));
            }
            names.push(n.clone());
        }
        let declared = !sc.nodes.is_empty();
        let mut ends = Vec::with_capacity(sc.links.len());
        for (i, l) in sc.links.iter().enumerate() {
            let (Some(a), Some(b)) = (&l.from, &l.to) else {
                return Err(format!(
                    "links[{i}] needs 'from' and 'to' (the scenario names nodes, so every \
                     link names its endpoints)"
                ));
            };
            let mut node = |n: &String| -> Result<usize, String> {
                if let Some(&k) = index.get(n) {
                    return Ok(k);
                }
                if declared {
                    return Err(format!(
                        "links[{i}] names node '{n}', which is not in nodes"
                    ));
                }
                index.insert(n.clone(), names.len());
                names.push(n.clone());
                Ok(names.len() - 1)
            };
            let (a, b) = (node(a)?, node(b)?);
            if a == b {
                return Err(format!("links[{i}] goes from '{}' to itself", names[a]));
            }
            ends.push((a, b));
        }
        let mut out = vec![Vec::new(); names.len()];
        let mut inc = vec![Vec::new(); names.len()];
        for (l, &(a, b)) in ends.iter().enumerate() {
            out[a].push(l);
            inc[b].push(l);
        }
        Ok(Some(Topology {
            names,
            index,
            ends,
            out,
            inc,
        }))
    }

    pub fn node(&self, name: &str) -> Option<usize> {
        self.index.get(name).copied()
    }

    pub fn name(&self, node: usize) -> &str {
        &self.names[node]
    }

    pub fn ends(&self, link: LinkId) -> (usize, usize) {
        self.ends[link]
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }

    /// Hops from every node to `dst` (`u32::MAX`: no path).
    fn hops_to(&self, dst: usize) -> Vec<u32> {
        let mut d = vec![u32::MAX; self.names.len()];
        d[dst] = 0;
        let mut q = VecDeque::from([dst]);
        while let Some(n) = q.pop_front() {
            for &l in &self.inc[n] {
                let m = self.ends[l].0;
                if d[m] == u32::MAX {
                    d[m] = d[n] + 1;
                    q.push_back(m);
                }
            }
        }
        d
    }

    /// The route from `src` to `dst`: fewest hops, then the lowest link index at each node
    /// (see the module documentation). `None` when `dst` cannot be reached.
    pub fn route(&self, src: usize, dst: usize) -> Option<Vec<LinkId>> {
        let d = self.hops_to(dst);
        if d[src] == u32::MAX {
            return None;
        }
        let mut path = Vec::with_capacity(d[src] as usize);
        let mut n = src;
        while n != dst {
            let l = *self.out[n]
                .iter()
                .find(|&&l| d[self.ends[l].1] == d[n] - 1)
                .expect("a node at distance k > 0 has a link to distance k - 1");
            path.push(l);
            n = self.ends[l].1;
        }
        Some(path)
    }

    /// Whether another path from `src` to `dst` is as short as `route` (ns-2 may break the
    /// tie differently).
    pub fn route_is_unique(&self, src: usize, dst: usize) -> bool {
        let d = self.hops_to(dst);
        if d[src] == u32::MAX {
            return true;
        }
        let mut n = src;
        while n != dst {
            let mut next = self.out[n]
                .iter()
                .filter(|&&l| d[self.ends[l].1] != u32::MAX && d[self.ends[l].1] == d[n] - 1);
            let Some(&l) = next.next() else {
                return false;
            };
            if next.next().is_some() {
                return false;
            }
            n = self.ends[l].1;
        }
        true
    }
}

/// Every flow's and traffic entry's paths, resolved before the run.
#[derive(Clone, Debug)]
pub struct Routes {
    /// (forward, reverse) link lists of each flow.
    pub flows: Vec<(Vec<LinkId>, Vec<LinkId>)>,
    /// (forward, reverse) of each traffic entry; reverse is empty for UDP sources.
    pub traffic: Vec<(Vec<LinkId>, Vec<LinkId>)>,
    pub topology: Option<Topology>,
}

impl Routes {
    pub fn resolve(sc: &Scenario) -> Result<Routes, String> {
        let topology = Topology::build(sc)?;
        let n_links = sc.links.len();
        let flows = sc
            .flows
            .iter()
            .enumerate()
            .map(|(i, f)| resolve_one(&format!("flows[{i}]"), f.path(), true, &topology, n_links))
            .collect::<Result<Vec<_>, _>>()?;
        let traffic = sc
            .traffic
            .iter()
            .enumerate()
            .map(|(i, t)| {
                resolve_one(
                    &format!("traffic[{i}]"),
                    t.path(),
                    t.is_tcp(),
                    &topology,
                    n_links,
                )
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Routes {
            flows,
            traffic,
            topology,
        })
    }
}

fn resolve_one(
    name: &str,
    p: PathSpec<'_>,
    tcp: bool,
    topo: &Option<Topology>,
    n_links: usize,
) -> Result<(Vec<LinkId>, Vec<LinkId>), String> {
    if p.src.is_some() || p.dst.is_some() {
        let (Some(src), Some(dst)) = (p.src, p.dst) else {
            return Err(format!("{name} needs both src and dst"));
        };
        if !p.forward.is_empty() || !p.reverse.is_empty() {
            return Err(format!(
                "{name}: give src and dst, or forward and reverse link paths, not both"
            ));
        }
        let Some(t) = topo else {
            return Err(format!(
                "{name} names nodes '{src}' and '{dst}', but no link names its endpoints"
            ));
        };
        let node = |n: &str| {
            t.node(n)
                .ok_or_else(|| format!("{name} names node '{n}', which no link touches"))
        };
        let (a, b) = (node(src)?, node(dst)?);
        if a == b {
            return Err(format!("{name} goes from '{src}' to itself"));
        }
        let fwd = t
            .route(a, b)
            .ok_or_else(|| format!("{name}: no route from '{src}' to '{dst}'"))?;
        let rev = if tcp {
            t.route(b, a)
                .ok_or_else(|| format!("{name}: no route for ACKs from '{dst}' to '{src}'"))?
        } else {
            Vec::new()
        };
        return Ok((fwd, rev));
    }
    if p.forward.is_empty() || (tcp && p.reverse.is_empty()) {
        return Err(if tcp {
            format!("{name} needs a forward and a reverse path (or src and dst)")
        } else {
            format!("{name} needs a forward path (or src and dst)")
        });
    }
    if !tcp && !p.reverse.is_empty() {
        return Err(format!("{name}: a UDP source has no reverse path"));
    }
    if let Some(&bad) = p.forward.iter().chain(p.reverse).find(|&&l| l >= n_links) {
        return Err(format!("{name} names link {bad}, but there are {n_links}"));
    }
    if let Some(t) = topo {
        let chained = |path: &[LinkId]| path.windows(2).all(|w| t.ends(w[0]).1 == t.ends(w[1]).0);
        if !chained(p.forward) || !chained(p.reverse) {
            return Err(format!(
                "{name}: each link of a path must start where the previous one ends"
            ));
        }
        if tcp {
            let (s, d) = (
                t.ends(p.forward[0]).0,
                t.ends(*p.forward.last().expect("non-empty")).1,
            );
            let (rs, rd) = (
                t.ends(p.reverse[0]).0,
                t.ends(*p.reverse.last().expect("non-empty")).1,
            );
            if rs != d || rd != s {
                return Err(format!(
                    "{name}: the reverse path must run from '{}' back to '{}'",
                    t.name(d),
                    t.name(s)
                ));
            }
        }
    }
    Ok((p.forward.to_vec(), p.reverse.to_vec()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Links as (from, to) on nodes named by letters.
    fn scenario(links: &[(&str, &str)]) -> Scenario {
        let links: Vec<serde_json::Value> = links
            .iter()
            .map(|(a, b)| {
                serde_json::json!({"from": a, "to": b, "rate_bps": 1e6, "queue_packets": 10,
                                   "delay": {"kind": "fixed", "delay_s": 0.01}})
            })
            .collect();
        serde_json::from_value(serde_json::json!({
            "seed": 1, "duration_s": 1.0, "links": links, "flows": []}))
        .unwrap()
    }

    fn route(links: &[(&str, &str)], a: &str, b: &str) -> Option<Vec<LinkId>> {
        let t = Topology::build(&scenario(links)).unwrap().unwrap();
        t.route(t.node(a).unwrap(), t.node(b).unwrap())
    }

    #[test]
    fn fewest_hops_wins_over_lower_link_indices() {
        // A-B-C-D the long way on links 0-2, A-E-D the short way on 3-4.
        let l = [("A", "B"), ("B", "C"), ("C", "D"), ("A", "E"), ("E", "D")];
        assert_eq!(route(&l, "A", "D"), Some(vec![3, 4]));
        assert_eq!(route(&l, "B", "D"), Some(vec![1, 2]));
        assert_eq!(route(&l, "D", "A"), None, "links are directed");
    }

    #[test]
    fn ties_go_to_the_lowest_link_index_at_each_node() {
        // Two 2-hop paths A-X-D (links 2, 3) and A-Y-D (links 1, 4); A's lowest link on a
        // shortest path is 1, so A-Y-D, even though X was named first.
        let l = [("X", "Y"), ("A", "Y"), ("A", "X"), ("X", "D"), ("Y", "D")];
        assert_eq!(route(&l, "A", "D"), Some(vec![1, 4]));
        let t = Topology::build(&scenario(&l)).unwrap().unwrap();
        let (a, d) = (t.node("A").unwrap(), t.node("D").unwrap());
        assert!(!t.route_is_unique(a, d));
        assert!(t.route_is_unique(t.node("X").unwrap(), d));
        // Parallel links: the lower index.
        let l = [("A", "B"), ("A", "B")];
        assert_eq!(route(&l, "A", "B"), Some(vec![0]));
    }

    #[test]
    fn dumbbell_routes_cross_the_bottleneck_once() {
        // A1, A2 -> B -> C -> D1, D2 with duplex links: 2k forward, 2k+1 backward.
        let mut l = Vec::new();
        for (a, b) in [
            ("A1", "B"),
            ("A2", "B"),
            ("B", "C"),
            ("C", "D1"),
            ("C", "D2"),
        ] {
            l.push((a, b));
            l.push((b, a));
        }
        assert_eq!(route(&l, "A2", "D1"), Some(vec![2, 4, 6]));
        assert_eq!(route(&l, "D1", "A2"), Some(vec![7, 5, 3]));
    }

    #[test]
    fn flows_by_node_or_by_path_are_checked() {
        let mut sc = scenario(&[("S", "N"), ("N", "D"), ("D", "N"), ("N", "S")]);
        let tcp = serde_json::json!({"packet_size_bytes": 1000, "ack_size_bytes": 40,
            "max_window": 20, "initial_window": 1, "dupack_threshold": 3, "min_rto_s": 0.2,
            "max_rto_s": 60.0, "initial_rto_s": 1.0, "granularity_s": 0.0,
            "fixed_rto_s": null, "max_backoff": 64});
        let flow = |extra: serde_json::Value| -> crate::config::FlowConfig {
            let mut f = serde_json::json!({"variant": "new_reno", "tcp": tcp,
                                           "app": {"kind": "bulk"}});
            f.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            serde_json::from_value(f).unwrap()
        };
        sc.flows = vec![flow(serde_json::json!({"src": "S", "dst": "D"}))];
        let r = Routes::resolve(&sc).unwrap();
        assert_eq!(r.flows[0], (vec![0, 1], vec![2, 3]));
        sc.flows = vec![flow(
            serde_json::json!({"forward": [0, 1], "reverse": [2, 3]}),
        )];
        assert_eq!(
            Routes::resolve(&sc).unwrap().flows[0],
            (vec![0, 1], vec![2, 3])
        );
        sc.flows = vec![flow(
            serde_json::json!({"forward": [1, 0], "reverse": [2, 3]}),
        )];
        assert!(Routes::resolve(&sc).unwrap_err().contains("start where"));
        sc.flows = vec![flow(serde_json::json!({"forward": [0, 1], "reverse": [3]}))];
        assert!(Routes::resolve(&sc).unwrap_err().contains("back to"));
        sc.flows = vec![flow(serde_json::json!({"src": "S", "dst": "Q"}))];
        assert!(Routes::resolve(&sc).unwrap_err().contains("'Q'"));
        sc.flows = vec![flow(
            serde_json::json!({"src": "S", "dst": "D", "forward": [0]}),
        )];
        assert!(Routes::resolve(&sc).unwrap_err().contains("not both"));
    }

    #[test]
    fn declared_nodes_must_cover_every_endpoint() {
        let mut sc = scenario(&[("S", "N")]);
        sc.nodes = vec!["S".into()];
        assert!(Topology::build(&sc).unwrap_err().contains("'N'"));
        sc.nodes = vec!["S".into(), "N".into(), "S".into()];
        assert!(Topology::build(&sc).unwrap_err().contains("twice"));
        sc.nodes = vec!["N".into(), "S".into()];
        let t = Topology::build(&sc).unwrap().unwrap();
        assert_eq!(t.node("S"), Some(1));
        sc.links[0].from = None;
        assert!(Topology::build(&sc).unwrap_err().contains("links[0]"));
    }
}
