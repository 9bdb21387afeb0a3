//! The search tree: nodes in one arena (`Vec<Node>`, linked by indices), the
//! four UCT steps (select, expand, simulate, back up), and re-rooting to keep
//! the subtree of the moves actually played.

use othello_sdk::legal_moves;

use crate::playout::{WIN, random_playouts};
use othello_sdk::SplitMix64;

/// Most nodes the arena holds (32 bytes each: 64 MiB, twice that at most
/// while re-rooting; the host's default memory limit is 1 GiB). About a second
/// of search fills it; then the tree stops growing and playouts go on from its
/// leaves.
pub const MAX_NODES: usize = 1 << 21;

/// UCB1's exploration term is `√(EXPLORATION · ln N / nᵢ)`; 2 is the
/// textbook constant for results in 0..=1.
pub const EXPLORATION: f64 = 2.0;

/// A leaf is expanded (all its children created at once) when it is reached
/// after this many visits: not on its first, so that the many leaves reached
/// only once cost no children (the tree grows by about two nodes a playout).
pub const EXPAND_AFTER_VISITS: u32 = 1;

/// How deep to look for the new position among the old tree's nodes: our move
/// and the opponent's reply (a pass counts as a move).
pub const REUSE_DEPTH: usize = 2;

/// The `mv` of a pass.
pub const PASS: u8 = 64;

/// `first_child` of a node not expanded yet.
const NOT_EXPANDED: u32 = u32::MAX;

/// One position in the tree.
#[derive(Debug, Clone, Copy)]
pub struct Node {
    /// Discs of the side to move here, and of the other side.
    pub player: u64,
    pub opponent: u64,
    /// The children are `first_child .. first_child + child_count` (none at
    /// the end of the game).
    first_child: u32,
    pub visits: u32,
    /// Points ×2 (see [`WIN`]) won by the side that moved *into* this node.
    pub points: u32,
    child_count: u8,
    /// The move leading here: a square 0..64, or [`PASS`].
    pub mv: u8,
}

const _: () = assert!(std::mem::size_of::<Node>() == 32);

impl Node {
    fn new(player: u64, opponent: u64, mv: u8) -> Node {
        Node { player, opponent, first_child: NOT_EXPANDED, visits: 0, points: 0, child_count: 0, mv }
    }

    fn is_expanded(&self) -> bool {
        self.first_child != NOT_EXPANDED
    }

    /// The share of points the side that moved here won, 0..=1.
    pub fn mean(&self) -> f64 {
        if self.visits == 0 { 0.5 } else { f64::from(self.points) / f64::from(WIN * self.visits) }
    }
}

/// The tree, rooted at index 0.
#[derive(Debug, Default)]
pub struct Tree {
    nodes: Vec<Node>,
    /// The arena re-rooting copies into (kept to reuse its allocation).
    spare: Vec<Node>,
    /// The nodes from the root to the leaf of the current playout.
    path: Vec<u32>,
}

impl Tree {
    /// Drops every node.
    pub fn clear(&mut self) {
        self.nodes.clear();
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    pub fn root(&self) -> Option<&Node> {
        self.nodes.first()
    }

    /// The root's children (empty before the first expansion).
    pub fn root_children(&self) -> &[Node] {
        self.nodes.first().map_or(&[], |root| self.children(root))
    }

    /// The children of a node of this tree (empty for a leaf).
    pub fn children(&self, node: &Node) -> &[Node] {
        if node.is_expanded() {
            let first = node.first_child as usize;
            &self.nodes[first..first + usize::from(node.child_count)]
        } else {
            &[]
        }
    }

    /// Makes the position (`player` to move) the root, keeping its subtree if
    /// the tree has it within [`REUSE_DEPTH`] moves of the old root. Returns
    /// whether it did.
    pub fn set_root(&mut self, player: u64, opponent: u64) -> bool {
        match self.find(player, opponent) {
            Some(0) => true,
            Some(index) => {
                self.keep_subtree(index);
                true
            }
            None => {
                self.nodes.clear();
                self.nodes.push(Node::new(player, opponent, PASS));
                false
            }
        }
    }

    /// The index of a node with this position within [`REUSE_DEPTH`] of the
    /// root: the nearest, and of those (different move orders can reach the
    /// same position) the most visited.
    fn find(&self, player: u64, opponent: u64) -> Option<u32> {
        let mut level: Vec<u32> = if self.nodes.is_empty() { Vec::new() } else { vec![0] };
        for _ in 0..=REUSE_DEPTH {
            let found = level
                .iter()
                .copied()
                .filter(|&i| (self.nodes[i as usize].player, self.nodes[i as usize].opponent) == (player, opponent))
                .max_by_key(|&i| self.nodes[i as usize].visits);
            if found.is_some() {
                return found;
            }
            level = level
                .iter()
                .flat_map(|&i| {
                    let node = &self.nodes[i as usize];
                    let first = node.first_child;
                    (0..u32::from(if node.is_expanded() { node.child_count } else { 0 })).map(move |k| first + k)
                })
                .collect();
        }
        None
    }

    /// Replaces the tree by the subtree under `index`, copied breadth-first
    /// into the spare arena so children stay contiguous.
    fn keep_subtree(&mut self, index: u32) {
        let (old, new) = (&self.nodes, &mut self.spare);
        new.clear();
        new.push(old[index as usize]);
        let mut next = 0;
        while next < new.len() {
            let node = new[next];
            if node.is_expanded() {
                let first = node.first_child as usize;
                new[next].first_child = new.len() as u32;
                new.extend_from_slice(&old[first..first + usize::from(node.child_count)]);
            }
            next += 1;
        }
        std::mem::swap(&mut self.nodes, &mut self.spare);
    }

    /// `N` UCT iterations at once: `N` times walk down by UCB1 to a leaf
    /// (expanding it first if it has been visited before), then play a random
    /// game from each leaf, side by side (see [`random_playouts`]), and add
    /// each result to every node on its way. Returns the depth of the deepest leaf.
    ///
    /// Every node on a path counts its visit as soon as the walk passes it,
    /// with no points yet (a "virtual loss"), so the next walks of the batch
    /// spread out instead of all reaching the same leaf. The tree must have a
    /// root ([`Tree::set_root`]).
    pub fn iterate<const N: usize>(&mut self, rng: &mut SplitMix64) -> usize {
        self.path.clear();
        let mut path_ends = [0; N];
        let mut leaves = [(0, 0); N];
        for lane in 0..N {
            let leaf = self.descend();
            leaves[lane] = (self.nodes[leaf as usize].player, self.nodes[leaf as usize].opponent);
            path_ends[lane] = self.path.len();
        }

        let results = random_playouts(leaves, rng);

        let mut deepest = 0;
        let mut path_start = 0;
        for (result, path_end) in results.into_iter().zip(path_ends) {
            // The result for the side to move at the leaf, then alternately
            // for the other side going up (every move, a pass too, changes sides).
            let mut result = result;
            for &on_path in self.path[path_start..path_end].iter().rev() {
                self.nodes[on_path as usize].points += WIN - result; // for the side that moved into it
                result = WIN - result;
            }
            deepest = deepest.max(path_end - path_start - 1);
            path_start = path_end;
        }
        deepest
    }

    /// Walks from the root to a leaf, appending the nodes passed to `path`
    /// and counting a visit on each; returns the leaf.
    fn descend(&mut self) -> u32 {
        let mut index = 0;
        loop {
            let node = self.nodes[index as usize];
            self.nodes[index as usize].visits += 1;
            self.path.push(index);
            if !node.is_expanded() {
                if node.visits >= EXPAND_AFTER_VISITS && self.expand(index) {
                    let node = self.nodes[index as usize];
                    if node.child_count > 0 {
                        index = node.first_child;
                        self.nodes[index as usize].visits += 1;
                        self.path.push(index);
                    }
                }
                return index;
            }
            if node.child_count == 0 {
                return index; // the game is over here
            }
            index = self.select_child(index);
        }
    }

    /// The child with the highest UCB1 value `x̄ᵢ + √(2 ln N / nᵢ)`; an
    /// unvisited child first.
    fn select_child(&self, parent: u32) -> u32 {
        let parent = &self.nodes[parent as usize];
        let log_parent_visits = f64::from(parent.visits.max(1)).ln();
        let first = parent.first_child;
        let mut best = (first, f64::NEG_INFINITY);
        for (offset, child) in self.children(parent).iter().enumerate() {
            if child.visits == 0 {
                return first + offset as u32;
            }
            let visits = f64::from(child.visits);
            let ucb = child.mean() + (EXPLORATION * log_parent_visits / visits).sqrt();
            if ucb > best.1 {
                best = (first + offset as u32, ucb);
            }
        }
        best.0
    }

    /// Creates the children of a leaf: one per legal move, a single pass when
    /// the side to move must pass, none when the game is over. Returns false
    /// (and leaves the node a leaf) when the arena is full.
    fn expand(&mut self, index: u32) -> bool {
        let Node { player, opponent, .. } = self.nodes[index as usize];
        let moves = legal_moves(player, opponent);
        let count =
            if moves != 0 { moves.count_ones() as usize } else { usize::from(legal_moves(opponent, player) != 0) };
        if self.nodes.len() + count > MAX_NODES {
            return false;
        }
        let first = self.nodes.len() as u32;
        if moves == 0 && count == 1 {
            self.nodes.push(Node::new(opponent, player, PASS));
        }
        let mut remaining = moves;
        while remaining != 0 {
            let square = remaining.trailing_zeros();
            remaining &= remaining - 1;
            let flipped = othello_sdk::flips(player, opponent, square as usize);
            self.nodes.push(Node::new(opponent ^ flipped, player | flipped | (1 << square), square as u8));
        }
        let node = &mut self.nodes[index as usize];
        node.first_child = first;
        node.child_count = count as u8;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use othello_sdk::{Move, Position, parse_transcript_from};

    fn position_after(moves: &str) -> Position {
        parse_transcript_from(Position::start(), moves).unwrap().1
    }

    fn tree_at(position: &Position) -> Tree {
        let mut tree = Tree::default();
        tree.set_root(position.player().0, position.opponent().0);
        tree
    }

    #[test]
    fn visits_add_up_and_every_child_is_tried() {
        let start = Position::start();
        let mut tree = tree_at(&start);
        let mut rng = SplitMix64::new(1);
        for _ in 0..250 {
            tree.iterate::<4>(&mut rng);
        }
        let root = tree.root().unwrap();
        assert_eq!(root.visits, 1000);
        let children = tree.root_children();
        assert_eq!(children.len(), 4);
        // The root's first visit came before its expansion.
        assert_eq!(children.iter().map(|c| c.visits).sum::<u32>(), 999);
        assert!(children.iter().all(|c| c.visits > 100), "{children:?}");
        // Children hold the positions after their moves.
        for child in children {
            let mut after = start;
            after.play(Move::Play(othello_sdk::Square::new(child.mv).unwrap()));
            assert_eq!((child.player, child.opponent), (after.player().0, after.opponent().0));
        }
    }

    #[test]
    fn a_pass_is_a_child() {
        // White has no move but black has: the only child is a pass.
        let position = Position::from_board_string(&format!("XXO{} O", "-".repeat(61))).unwrap();
        let mut tree = tree_at(&position);
        let mut rng = SplitMix64::new(2);
        for _ in 0..3 {
            tree.iterate::<1>(&mut rng);
        }
        let children = tree.root_children();
        assert_eq!(children.len(), 1);
        assert_eq!(children[0].mv, PASS);
        assert_eq!((children[0].player, children[0].opponent), (position.opponent().0, position.player().0));
    }

    #[test]
    fn a_won_position_scores_every_visit() {
        // Black to move wins by force: the only move a1 takes the last white disc.
        let position = Position::from_board_string(&format!("-OX{} X", "-".repeat(61))).unwrap();
        let mut tree = tree_at(&position);
        let mut rng = SplitMix64::new(3);
        for _ in 0..10 {
            tree.iterate::<1>(&mut rng);
        }
        let children = tree.root_children();
        assert_eq!(children.len(), 1);
        assert_eq!(children[0].mean(), 1.0);
        assert_eq!(tree.root().unwrap().mean(), 0.0, "white, who moved into the root, lost every game");
    }

    #[test]
    fn re_rooting_keeps_the_subtree_of_the_moves_played() {
        let start = Position::start();
        let mut tree = tree_at(&start);
        let mut rng = SplitMix64::new(4);
        for _ in 0..1250 {
            tree.iterate::<4>(&mut rng);
        }
        let after = position_after("f5d6");
        let (visits_before, subtree_before) = {
            let f5 = tree.root_children().iter().find(|c| c.mv == 37).unwrap();
            let d6 = tree.children(f5).iter().find(|c| c.mv == 43).unwrap();
            (d6.visits, *d6)
        };
        assert!(visits_before > 10);
        let total_before = tree.len();
        assert!(tree.set_root(after.player().0, after.opponent().0));
        let root = tree.root().unwrap();
        assert_eq!((root.visits, root.points), (visits_before, subtree_before.points));
        assert!(tree.len() < total_before);
        // Every node kept is reachable, and the statistics still add up.
        let children_visits: u32 = tree.root_children().iter().map(|c| c.visits).sum();
        assert_eq!(children_visits, root.visits - EXPAND_AFTER_VISITS);
        // Searching on from the kept subtree works.
        for _ in 0..100 {
            tree.iterate::<1>(&mut rng);
        }
        assert_eq!(tree.root().unwrap().visits, visits_before + 100);

        // A position not in the tree starts a new one.
        let elsewhere = position_after("c4c3");
        assert!(!tree.set_root(elsewhere.player().0, elsewhere.opponent().0));
        assert_eq!(tree.len(), 1);
    }
}
