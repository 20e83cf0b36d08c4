"""TwentyOne in the warehouse: turns, long-form scores, and views of hands and dealers."""

from __future__ import annotations

from mine.parsers import twentyone as log_format
from mine.parsers.cards import COURSE_RANKS
from mine.strategies.engines.twentyone import TwentyOneRules
from mine.warehouse.checks import numbered_score_rows, out_of_range, rule

GAME = "twentyone"
FORMAT = log_format
RULES = TwentyOneRules

# A card's points with the ace low are the place of its rank's first letter in this string,
# at most 10 ("10" is the only rank of two letters, and its "1" sits tenth): one `strpos`,
# less than half the time of a CASE over the ranks.
_INITIALS = "".join(rank[0] for rank in COURSE_RANKS)

SCHEMA = f"""
CREATE TABLE IF NOT EXISTS twentyone_turn_rows (
    log_id INTEGER NOT NULL,
    line INTEGER NOT NULL,
    round INTEGER NOT NULL,
    hand VARCHAR NOT NULL,
    player VARCHAR NOT NULL,
    mine BOOLEAN NOT NULL,
    hand_id INTEGER NOT NULL,
    action VARCHAR NOT NULL,
    amount INTEGER,
    bid INTEGER NOT NULL,
    upcard VARCHAR NOT NULL
);
COMMENT ON TABLE twentyone_turn_rows IS 'TwentyOne: the turn files'' rows, the hand as written (SQ;H3); query twentyone_turns';

-- Hands are stored as the text the file has (a list costs a fifth more to write) and
-- read as lists through this view.
CREATE OR REPLACE VIEW twentyone_turns AS
SELECT log_id, line, round,
       CASE WHEN hand = '' THEN []::VARCHAR[] ELSE string_split(hand, ';') END AS hand,
       player, mine, hand_id, action, amount, bid, upcard
FROM twentyone_turn_rows;
COMMENT ON VIEW twentyone_turns IS 'TwentyOne: one row per logged decision, as the turn file has it (hand after the action as a list, newest card first)';

CREATE TABLE IF NOT EXISTS twentyone_seats (
    log_id INTEGER NOT NULL,
    seat INTEGER NOT NULL,
    player VARCHAR NOT NULL,
    mine BOOLEAN NOT NULL
);
COMMENT ON TABLE twentyone_seats IS 'TwentyOne: the players of each log: seat 1 is the logging player, the others follow in id order (as the score file lists them)';

CREATE TABLE IF NOT EXISTS twentyone_round_points (
    log_id INTEGER NOT NULL,
    round INTEGER NOT NULL,
    points INTEGER[] NOT NULL
);
COMMENT ON TABLE twentyone_round_points IS 'TwentyOne: the score file: every player''s running points after each round, by seat (see twentyone_scores for the long form)';

CREATE OR REPLACE VIEW twentyone_scores AS
SELECT r.log_id, r.round, s.player, s.mine, r.points[s.seat] AS points
FROM twentyone_round_points r JOIN twentyone_seats s USING (log_id);
COMMENT ON VIEW twentyone_scores IS 'TwentyOne: every player''s running points after each round (long form; opponents'' ids recovered from the turn file)';

CREATE OR REPLACE MACRO card_hard_points(card) AS  -- the ace counted low (1)
    least(strpos('{_INITIALS}', card[2]), 10);
CREATE OR REPLACE MACRO blackjack_points(card) AS  -- the ace counted high (11)
    CASE WHEN card[2] = 'A' THEN 11 ELSE card_hard_points(card) END;
-- A hand's best total from its hard total: an ace counts 11 while that keeps it to 21.
CREATE OR REPLACE MACRO best_total(hard, has_ace) AS
    hard + CASE WHEN has_ace AND hard <= 11 THEN 10 ELSE 0 END;
CREATE OR REPLACE MACRO hand_hard_total(hand) AS
    coalesce(list_sum(list_transform(hand, lambda c: card_hard_points(c))), 0);
CREATE OR REPLACE MACRO hand_soft(hand) AS
    list_bool_or(list_transform(hand, lambda c: substr(c, 2) = 'A'))
    AND hand_hard_total(hand) + 10 <= 21;
CREATE OR REPLACE MACRO hand_total(hand) AS
    best_total(hand_hard_total(hand), list_bool_or(list_transform(hand, lambda c: substr(c, 2) = 'A')));
-- A hand as the file writes it (SQ;H3, newest card first), without making it a list.
CREATE OR REPLACE MACRO text_cards(hand) AS
    CASE WHEN hand = '' THEN 0 ELSE length(hand) - length(replace(hand, ';', '')) + 1 END;
CREATE OR REPLACE MACRO text_older(hand) AS  -- the hand before its newest card
    CASE WHEN contains(hand, ';') THEN substr(hand, strpos(hand, ';') + 1) ELSE '' END;
-- Suits are letters other than A, so an A in the text is an ace.
CREATE OR REPLACE MACRO text_total(hand) AS
    best_total(hand_hard_total(string_split(hand, ';')), contains(hand, 'A'));
CREATE OR REPLACE MACRO hand_class(hand, charlie_cards := 5, dealer := false) AS
    CASE WHEN len(hand) = 2 AND hand_total(hand) = 21 THEN 'Combo'
         WHEN hand_total(hand) > 21 THEN 'Bust'
         WHEN len(hand) = charlie_cards OR (len(hand) > charlie_cards AND NOT dealer)
              THEN 'Charlie'
         ELSE 'Value' END;

CREATE OR REPLACE VIEW twentyone_turn_totals AS
SELECT *, len(hand) AS n_cards, hand_total(hand) AS total, hand_soft(hand) AS soft,
       hand_class(hand) AS hand_class
FROM twentyone_turns WHERE action <> 'Bid';
COMMENT ON VIEW twentyone_turn_totals IS 'TwentyOne: decisions with the hand''s card count, total, soft flag and class after the action';

CREATE OR REPLACE VIEW twentyone_hands AS
SELECT log_id, round, player, any_value(mine) AS mine, hand_id, any_value(upcard) AS upcard,
       arg_max(hand, line) AS cards, len(arg_max(hand, line)) AS n_cards,
       hand_total(arg_max(hand, line)) AS total, hand_soft(arg_max(hand, line)) AS soft,
       hand_class(arg_max(hand, line)) AS hand_class, arg_max(bid, line) AS bid,
       list(action ORDER BY line) AS actions
FROM twentyone_turns
WHERE player <> 'dealer' AND action <> 'Bid'
GROUP BY log_id, round, player, hand_id;
COMMENT ON VIEW twentyone_hands IS 'TwentyOne: one row per player hand: final cards, total, class (Charlie at 5 cards), final bid, actions';

CREATE OR REPLACE VIEW twentyone_dealer_hands AS
SELECT log_id, round, any_value(upcard) AS upcard, arg_max(hand, line) AS cards,
       len(arg_max(hand, line)) AS n_cards, hand_total(arg_max(hand, line)) AS total,
       hand_class(arg_max(hand, line), dealer := true) AS hand_class,
       len(arg_max(hand, line)) > 1 AS played
FROM twentyone_turns
WHERE player = 'dealer'
GROUP BY log_id, round;
COMMENT ON VIEW twentyone_dealer_hands IS 'TwentyOne: the dealer''s final hand per round (played = false when every player hand was bust; only exactly 5 cards make its Charlie: it draws on past 5)';

CREATE OR REPLACE VIEW twentyone_players AS
SELECT log_id, player, bool_or(mine) AS mine, max(round) AS rounds,
       arg_max(points, round) AS final_points
FROM twentyone_scores GROUP BY log_id, player;
COMMENT ON VIEW twentyone_players IS 'TwentyOne: each player of each game with its rounds and final points';
"""

TABLES = ("twentyone_turn_rows", "twentyone_seats", "twentyone_round_points")

ROW_CHECKS = {
    "turns": (
        ("action LIKE 'Bid%' AND hand <> ''", "'a Bid row must have an empty hand'"),
        ("action NOT LIKE 'Bid%' AND hand = ''", "format('a {} row must show the hand', action)"),
        ("player = 'dealer' AND mine = '1'", "'dealer rows cannot be marked as yours'"),
        ("player = 'dealer' AND bid <> 0", "'dealer rows must have bid 0'"),
        ("player = 'dealer' AND hand_id <> 0", "'dealer rows must have hand id 0'"),
    ),
}

# Whole-file rules, written with aggregates so that valid files cost no sort: only the
# files that break the round order have their rows ordered to find the exact line.
CHECKS = """
WITH rounds AS (
    SELECT log_id, round, min(line) AS first_line, max(line) AS last_line,
           min(upcard) <> max(upcard) AS mixed_upcards, mode(upcard) AS first_upcard
    FROM stage_turns GROUP BY log_id, round
),
unordered AS (
    SELECT DISTINCT log_id FROM (
        SELECT log_id, first_line, max(last_line) OVER (PARTITION BY log_id ORDER BY round
            ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS earlier_last
        FROM rounds
    ) WHERE first_line < earlier_last
),
players AS (  -- a player is yours when most of its rows say so
    SELECT log_id, player, min(line) AS first_line, count(*) AS n_rows,
           count(*) FILTER (WHERE mine = '1') AS n_marked,
           count(*) FILTER (WHERE mine = '0') AS n_unmarked,
           count(*) FILTER (WHERE mine = '1') > count(*) FILTER (WHERE mine = '0') AS marked,
           count(*) FILTER (WHERE mine = '1') <= count(*) FILTER (WHERE mine = '0') AS unmarked
    FROM stage_turns WHERE player <> 'dealer' GROUP BY log_id, player
),
perspective AS (
    -- the player with the fewest rows is the odd one out (a renamed row makes a new id)
    SELECT p.log_id, list(p.player ORDER BY p.first_line) FILTER (WHERE p.marked) AS mine_ids,
           arg_min(p.first_line, p.n_rows) FILTER (WHERE p.marked) AS odd_mine_line,
           arg_min(p.first_line, p.n_rows) FILTER (WHERE p.unmarked) AS odd_other_line,
           count(*) FILTER (WHERE p.unmarked) AS opponents, any_value(r.rounds) AS rounds,
           any_value(r.last_line) AS last_line
    FROM players p
    JOIN (SELECT log_id, max(round) AS rounds, max(last_line) AS last_line
          FROM rounds GROUP BY log_id) r USING (log_id)
    GROUP BY p.log_id
),
scores AS (
    SELECT s.*, p.opponents, p.rounds,
           CASE WHEN s.others = '' THEN 0 ELSE len(string_split(s.others, ';')) END AS n_others,
           max(s.line) OVER (PARTITION BY s.log_id) AS last_line
    FROM stage_scores s JOIN perspective p USING (log_id)
)
SELECT log_id, 'turns' AS role, line, CASE
    WHEN round > next AND coalesce(previous <= next, true)  -- this row, not the next, is out of place
        THEN format('round {} comes before round {}', round, next)
    ELSE format('round goes back from {} to {}', previous, round) END AS reason
FROM (
    SELECT log_id, line, round, lag(round) OVER w AS previous, lead(round) OVER w AS next
    FROM stage_turns WHERE log_id IN (SELECT log_id FROM unordered)
    WINDOW w AS (PARTITION BY log_id ORDER BY line)
) WHERE round < previous OR (round > next AND coalesce(previous <= next, true))
UNION ALL
SELECT t.log_id, 'turns', t.line,
       format('up card {} differs from the round''s up card {}', t.upcard, r.first_upcard)
FROM stage_turns t JOIN (SELECT * FROM rounds WHERE mixed_upcards) r USING (log_id, round)
WHERE t.upcard <> r.first_upcard AND log_id NOT IN (SELECT log_id FROM unordered)
UNION ALL
SELECT t.log_id, 'turns', min(t.line),
       format('{} is marked as yours on some rows and not on others', any_value(t.player))
FROM stage_turns t JOIN players p USING (log_id, player)
WHERE p.n_marked > 0 AND p.n_unmarked > 0 AND (t.mine = '1') = p.unmarked
GROUP BY t.log_id, t.player
UNION ALL
SELECT log_id, 'turns', CASE WHEN len(mine_ids) > 1 THEN odd_mine_line ELSE last_line END, CASE coalesce(len(mine_ids), 0)
    WHEN 0 THEN 'no row is marked as yours (column 4)'
    ELSE format('rows marked as yours belong to several players: {}', array_to_string(mine_ids, ', '))
  END
FROM perspective WHERE coalesce(len(mine_ids), 0) <> 1
UNION ALL
SELECT s.log_id, 'turns', p.odd_other_line,
       format('a player the score file does not list: it has {} other players', s.n_others)
FROM scores s JOIN perspective p USING (log_id)
WHERE s.round = s.line AND s.n_others < s.opponents
UNION ALL
SELECT log_id, 'scores', line,
       format('{} other players'' points, but the turn file has {} other players', n_others, opponents)
FROM scores WHERE round = line AND n_others > opponents
UNION ALL
""" + numbered_score_rows("round", "rounds")

LOAD = {
    "twentyone_turn_rows": """
    INSERT INTO twentyone_turn_rows
    SELECT log_id, line, round, hand, player, mine = '1', hand_id,
           CASE WHEN contains(action, ' ') THEN split_part(action, ' ', 1) ELSE action END,
           CASE WHEN contains(action, ' ') THEN CAST(split_part(action, ' ', 2) AS INTEGER) END,
           bid, upcard
    FROM stage_turns
    """,
    # The score file's columns are seats: the logging player, then the others by id.
    "twentyone_seats": """
    INSERT INTO twentyone_seats
    SELECT log_id, row_number() OVER (PARTITION BY log_id ORDER BY NOT mine, player), player, mine
    FROM (
        SELECT log_id, player, bool_or(mine = '1') AS mine
        FROM stage_turns WHERE player <> 'dealer'
        GROUP BY log_id, player
    )
    """,
    "twentyone_round_points": """
    INSERT INTO twentyone_round_points
    SELECT log_id, round,
           list_prepend(points, CASE WHEN others = '' THEN []::INTEGER[]
                                     ELSE CAST(string_split(others, ';') AS INTEGER[]) END)
    FROM stage_scores
    """,
}

# --- the rules, replayed (TwentyOneRules, `../shared/spec/twentyone.md`) --------------------
# Each row is checked against the row before it in the same hand: the hand before the action
# is that row's hand (a hand's first row, or the first after a Split, shows two cards plus
# what the action added). The hands' final rows, classed and settled, must give every
# player's change of points in the score file.

SANE = {
    "turns": {
        "round": ("1", rule("rounds")),
        "hand_id": ("0", f"4 * {rule('decks')}"),  # a split needs a pair: at most 4 × decks
        "bid": ("0", f"2 * {rule('max_bid')}"),  # a DoubleDown doubles it
    },
    "scores": {
        "round": ("1", rule("rounds")),
        # at most 4 × decks hands a round, each doubled and paid at most 2.5 ×, + insurance
        "points": (
            "0",
            f"{rule('starting_points')} + {rule('rounds')} * {rule('max_bid')} * "
            f"(20 * {rule('decks')} + 2)",
        ),
    },
}
"""Each number's sane range, from the rules (points of the other players: `others` in the
settlement check, which names the player)."""

_PLAYER_CLASS = f"""CASE
    WHEN n = 2 AND total = 21 AND ({rule("combo_after_split")} OR NOT split) THEN 40
    WHEN {rule("charlie")} AND n >= {rule("charlie_cards")}
         AND (total <= 21 OR NOT {rule("charlie_bust_first")}) THEN 30
    WHEN total > 21 THEN -1 ELSE total END"""
_DEALER_CLASS = f"""CASE
    WHEN NOT played THEN -1
    WHEN d_n = 2 AND d_total = 21 THEN 40
    WHEN {rule("charlie")} AND d_n = {rule("charlie_cards")}
         AND (d_total <= 21 OR NOT {rule("charlie_bust_first")}) THEN 30
    WHEN d_total > 21 THEN -1 ELSE d_total END"""
_DEALER_HITS = f"""(({rule("dealer_card_limit")} = 0 OR text_cards(before) < {rule("dealer_card_limit")})
    AND (text_total(before) < {rule("dealer_stands_on")}
         OR ({rule("dealer_hits_soft_17")} AND text_total(before) = {rule("dealer_stands_on")}
             AND hand_soft(string_split(before, ';')))))"""

RULE_CHECKS = f"""
WITH r AS (
    -- A hand's rows are one run of the file (checked below), so the row before in the file
    -- is the row before in the hand when it has the same round, player and hand id: one
    -- window in file order, which costs far less than one partitioned by hand.
    SELECT *, coalesce(lag(round) OVER w = round AND lag(player) OVER w = player
                       AND lag(hand_id) OVER w = hand_id AND lag(act) OVER w <> 'Bid',
                       false) AS chained,
           coalesce(lag(round, 2) OVER w = round AND lag(player, 2) OVER w = player
                    AND lag(hand_id, 2) OVER w = hand_id, false) AS chained2,
           NOT coalesce(lead(round) OVER w = round AND lead(player) OVER w = player
                        AND lead(hand_id) OVER w = hand_id, false) AS last_row,
           lag(hand) OVER w AS previous_row_hand, lag(act) OVER w AS previous_row_act,
           lag(act, 2) OVER w AS act_two_back, lag(bid) OVER w AS previous_row_bid,
           lag(hit_total) OVER w AS previous_row_total
    FROM (
        SELECT log_id, line, round, player, hand_id, split_part(action, ' ', 1) AS act, bid,
               upcard, hand,
               -- a hand busts only on a Hit: the only rows whose total the checks need
               CASE WHEN split_part(action, ' ', 1) = 'Hit' THEN text_total(hand) END AS hit_total
        FROM stage_turns
    )
    WINDOW w AS (PARTITION BY log_id ORDER BY line)
),
chains AS (
    SELECT *, CASE WHEN chained THEN previous_row_hand END AS previous,
           CASE WHEN chained THEN previous_row_act END AS previous_act,
           CASE WHEN chained2 THEN act_two_back END AS act_before,
           CASE WHEN chained THEN previous_row_bid END AS previous_bid,
           CASE WHEN chained THEN previous_row_total END AS previous_total
    FROM r
),
bids AS (
    SELECT log_id, round, player, count(*) AS n_bids, min(line) AS bid_line,
           max(line) AS last_bid_line, arg_min(bid, line) AS bid
    FROM (SELECT log_id, line, round, player, bid FROM stage_turns
          WHERE split_part(action, ' ', 1) = 'Bid')
    GROUP BY ALL
),
plays AS (
    SELECT *, CASE
            WHEN previous IS NULL OR previous_act = 'Split'
                THEN CASE WHEN act = 'Hit' THEN text_older(hand) ELSE hand END
            ELSE previous END AS before
    FROM chains WHERE player <> 'dealer' AND act <> 'Bid'
),
hands AS (
    SELECT log_id, round, player, hand_id, min(line) AS first_line,
           arg_max(hand, line) AS final, arg_max(bid, line) AS final_bid,
           hand_id > 0 OR bool_or(act = 'Split') AS split,
           coalesce(min(bid) FILTER (WHERE act = 'Insurance'), 0) AS insured_bid,
           max(line) AS last_line, count(*) AS n_rows, arg_max(act, line) AS last_act,
           count(*) FILTER (WHERE act = 'Split') AS splits,
           text_cards(arg_max(hand, line)) AS n, text_total(arg_max(hand, line)) AS total
    FROM plays GROUP BY log_id, round, player, hand_id
),
seated AS (  -- each player's hands: one run of rows, hands in id order, one per Split
    SELECT log_id, round, player, min(first_line) AS first_line, max(last_line) AS last_line,
           sum(n_rows) AS n_rows, count(*) AS n_hands, max(hand_id) AS top_hand,
           sum(splits) AS splits
    FROM hands GROUP BY ALL
),
classed AS (SELECT *, {_PLAYER_CLASS} AS p_class FROM hands),
dealer AS (
    SELECT *, CASE WHEN previous IS NULL THEN CASE WHEN act = 'Hit' THEN text_older(hand) ELSE hand END
                   ELSE previous END AS before
    FROM chains WHERE player = 'dealer'
),
rounds AS (
    SELECT log_id, round, max(line) AS last_line,
           max(line) FILTER (WHERE player <> 'dealer') AS last_player_line,
           min(line) FILTER (WHERE player <> 'dealer' AND NOT bid_row) AS first_play_line,
           min(line) FILTER (WHERE player = 'dealer') AS first_dealer_line,
           arg_max(hand, line) FILTER (WHERE player = 'dealer') AS dealer_final
    FROM (SELECT log_id, line, round, player, hand,
                 split_part(action, ' ', 1) = 'Bid' AS bid_row FROM stage_turns)
    GROUP BY ALL
),
tables AS (
    SELECT r.*, coalesce(h.live, false) AS played, text_cards(dealer_final) AS d_n,
           text_total(dealer_final) AS d_total
    FROM rounds r LEFT JOIN (
        SELECT log_id, round, bool_or(p_class <> -1) AS live FROM classed GROUP BY ALL
    ) h USING (log_id, round)
),
shoes AS (
    -- The shoe is dealt round after round (the dealer's hole card too, shown or not), so
    -- the cards dealt before a round say which shoe it drew from; a round that opens a
    -- fresh shoe partway drew from two and is counted on its own.
    SELECT log_id, round, last_line,
           CASE WHEN dealt_before // (52 * {rule("decks")})
                     = (dealt_before + cards - 1) // (52 * {rule("decks")})
                THEN dealt_before // (52 * {rule("decks")}) END AS shoe
    FROM (
        SELECT *, coalesce(sum(cards) OVER (PARTITION BY log_id ORDER BY round ROWS BETWEEN
                                            UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS dealt_before
        FROM (
            SELECT t.log_id, t.round, t.last_line, coalesce(p.cards, 0) + CASE
                       WHEN p.cards IS NULL THEN 0 WHEN t.played THEN t.d_n ELSE 2 END AS cards
            FROM tables t LEFT JOIN (SELECT log_id, round, sum(n) AS cards FROM hands GROUP BY ALL) p
                 USING (log_id, round)
        )
    )
),
cards AS (
    SELECT c.*, s.shoe, s.last_line FROM (
        SELECT log_id, round, unnest(string_split(final, ';')) AS card FROM hands
        UNION ALL
        SELECT log_id, round, unnest(string_split(dealer_final, ';')) FROM rounds
    ) c JOIN shoes s USING (log_id, round)
),
overdrawn AS (  -- a card seen more often than its shoe holds it (a lone round: its two shoes)
    SELECT log_id, shoe, CASE WHEN shoe IS NULL THEN round END AS lone_round, card,
           CASE WHEN shoe IS NULL THEN 2 ELSE 1 END * {rule("decks")} AS held
    FROM cards GROUP BY ALL HAVING count(*) > held
),
settled AS (
    SELECT h.log_id, h.round, h.player,
           CAST(sum(CASE WHEN p_class = -1 THEN 0
                    WHEN p_class = 40 AND d_class = 40 THEN final_bid
                    WHEN p_class = 40 THEN round_even({rule("combo_payout")} * final_bid, 0)
                    WHEN p_class > d_class THEN {rule("win_payout")} * final_bid
                    WHEN p_class = d_class THEN final_bid ELSE 0 END
               + CASE WHEN insured_bid > 0 AND played AND d_class = 40
                       AND NOT ({rule("insurance_needs_live_hand")} AND p_class = -1)
                      THEN round_even({rule("insurance_payout")} * CASE
                           WHEN {rule("insurance_on_side_bet")} THEN insured_bid // 2
                           ELSE insured_bid END, 0)
                      ELSE 0 END
               - final_bid - insured_bid // 2) AS BIGINT) AS change
    FROM classed h JOIN (SELECT *, {_DEALER_CLASS} AS d_class FROM tables) t
         USING (log_id, round)
    GROUP BY ALL
),
seats AS (
    SELECT log_id, player,
           row_number() OVER (PARTITION BY log_id ORDER BY NOT mine, player) AS seat
    FROM (SELECT log_id, player, bool_or(mine = '1') AS mine
          FROM stage_turns WHERE player <> 'dealer' GROUP BY ALL)
),
points AS (
    SELECT *, coalesce(lag(points) OVER (PARTITION BY log_id, seat ORDER BY round),
                       {rule("starting_points")}) AS points_before
    FROM (
        SELECT log_id, line, round, 1 AS seat, CAST(points AS BIGINT) AS points FROM stage_scores
        UNION ALL
        SELECT log_id, line, round, CAST(o.seat AS INTEGER) + 1, o.points
        FROM (SELECT log_id, line, round,
                     unnest(TRY_CAST(string_split(others, ';') AS BIGINT[])) AS points,
                     unnest(range(1, len(string_split(others, ';')) + 1)) AS seat
              FROM stage_scores WHERE others <> '') o
    )
),
players AS (
    SELECT p.*, s.player FROM points p JOIN seats s USING (log_id, seat)
)
SELECT log_id, 'turns' AS role, line, reason FROM (
    SELECT p.log_id, p.line, CASE
        WHEN b.player IS NULL THEN format('{{}} plays a hand but did not bid this round', p.player)
        WHEN text_cards(p.before) <> 2 AND (p.previous IS NULL OR p.previous_act = 'Split')
            THEN format('a {{}} row shows {{}} cards: a hand starts with two', p.act,
                        text_cards(p.hand))
        WHEN p.previous_act = 'Split' AND split_part(p.before, ';', 1) <> split_part(p.previous, ';', 1)
            THEN format('after the Split the hand keeps {{}}, not {{}}',
                        split_part(p.previous, ';', 1), split_part(p.before, ';', 1))
        WHEN p.act = 'Hit' AND text_older(p.hand) <> p.before
            THEN format('a Hit adds one card to {{}}, this row shows {{}}',
                        p.before, p.hand)
        WHEN p.act <> 'Hit' AND p.hand <> p.before
            THEN format('a {{}} changes no card, but the hand was {{}} and is now {{}}', p.act,
                        p.before, p.hand)
        WHEN p.previous IS NOT NULL AND p.previous_act <> 'Split'
             AND (text_cards(p.before) >= {rule("charlie_cards")} OR coalesce(p.previous_total > 21, false))
            THEN format('a {{}} after the hand was finished ({{}} cards, {{}})', p.act,
                        text_cards(p.before), text_total(p.before))
        WHEN p.previous_act = 'DoubleDown' AND p.act <> 'Hit'
            THEN format('a {{}} after a DoubleDown: the hand must Hit once', p.act)
        WHEN p.act_before = 'DoubleDown' AND p.previous_act = 'Hit' AND p.act <> 'Stand'
            THEN format('a {{}} after a DoubleDown''s Hit: the hand must Stand', p.act)
        WHEN p.previous_act = 'Stand' THEN format('a {{}} after the hand stood', p.act)
        WHEN p.act = 'Split' AND (text_cards(p.before) <> 2
                                  OR substr(split_part(p.before, ';', 1), 2)
                                     <> substr(split_part(p.before, ';', 2), 2))
            THEN format('a Split of {{}}: only two cards of one rank split', p.before)
        WHEN p.act = 'DoubleDown' AND text_cards(p.before) <> 2
            THEN format('a DoubleDown on {{}} cards: only two-card hands double',
                        text_cards(p.before))
        WHEN p.act = 'Insurance' AND substr(p.upcard, 2) <> 'A'
            THEN format('Insurance with up card {{}}: only against an Ace', p.upcard)
        WHEN p.act = 'Insurance' AND (p.previous IS NOT NULL OR p.hand_id <> 0)
            THEN 'Insurance is only the first action of the hand'
        WHEN p.act = 'DoubleDown' AND p.bid <> 2 * coalesce(p.previous_bid, b.bid)
            THEN format('a DoubleDown makes the bid {{}}, not {{}}',
                        2 * coalesce(p.previous_bid, b.bid), p.bid)
        WHEN p.act <> 'DoubleDown' AND p.bid <> coalesce(p.previous_bid, b.bid)
            THEN format('bid {{}}, but the hand''s bid is {{}}', p.bid,
                        coalesce(p.previous_bid, b.bid))
    END AS reason
    FROM plays p LEFT JOIN bids b USING (log_id, round, player)
) WHERE reason IS NOT NULL
UNION ALL
SELECT log_id, 'turns', line, reason FROM (
    SELECT d.log_id, d.line, CASE
        WHEN d.line < t.last_player_line THEN 'a dealer row before the players have played'
        WHEN NOT t.played AND (d.line <> t.first_dealer_line OR d.hand <> d.upcard
                               OR d.act <> 'Stand')
            THEN format('every hand is bust: the dealer only shows its up card {{}} and Stands',
                        d.upcard)
        WHEN NOT t.played THEN NULL
        WHEN text_cards(d.before) < 2
            THEN format('the dealer shows {{}} card(s) though a hand is live',
                        text_cards(d.before))
        WHEN d.previous IS NULL AND split_part(d.before, ';', 1) <> d.upcard
            THEN format('the dealer''s first card {{}} is not the up card {{}}',
                        split_part(d.before, ';', 1),
                        d.upcard)
        WHEN d.act = 'Hit' AND text_older(d.hand) <> d.before
            THEN format('a dealer Hit adds one card to {{}}, this row shows {{}}',
                        d.before, d.hand)
        WHEN d.act NOT IN ('Hit', 'Stand') THEN format('the dealer cannot {{}}', d.act)
        WHEN d.previous_act = 'Stand' THEN 'a dealer row after the dealer stood'
        WHEN d.act = 'Stand' AND d.hand <> d.before
            THEN format('a dealer Stand changes the hand {{}} to {{}}',
                        d.before, d.hand)
        WHEN d.act = 'Hit' AND NOT {_DEALER_HITS.replace("before", "d.before")}
            THEN format('the dealer hits on {{}}: it stands on {{}}', text_total(d.before),
                        {rule("dealer_stands_on")})
        WHEN d.act = 'Stand' AND {_DEALER_HITS.replace("before", "d.hand")}
            THEN format('the dealer stands on {{}}: it hits below {{}}', text_total(d.hand),
                        {rule("dealer_stands_on")})
        WHEN d.last_row AND d.act <> 'Stand' THEN 'the dealer''s last row must be a Stand'
    END AS reason
    FROM dealer d JOIN tables t USING (log_id, round)
) WHERE reason IS NOT NULL
UNION ALL
SELECT log_id, 'turns', last_line, format('round {{}} has no dealer rows', round)
FROM rounds WHERE first_dealer_line IS NULL
UNION ALL
SELECT log_id, 'turns', CASE WHEN n_bids > 1 THEN last_bid_line ELSE bid_line END, CASE
    WHEN n_bids > 1 THEN format('{{}} bids twice in round {{}}', player, round)
    ELSE format('{{}} bids after the hands are dealt', player) END
FROM bids JOIN rounds USING (log_id, round)
WHERE n_bids > 1 OR last_bid_line > first_play_line
UNION ALL
SELECT b.log_id, 'turns', b.bid_line, format('{{}} bids but plays no hand', b.player)
FROM bids b ANTI JOIN hands h USING (log_id, round, player)
UNION ALL
SELECT log_id, 'turns', bid_line, format('{{}} bids out of the seat order its hands are played in',
                                         player)
FROM (
    SELECT b.log_id, b.bid_line, b.player,
           row_number() OVER (PARTITION BY b.log_id, b.round ORDER BY b.bid_line) AS bid_rank,
           row_number() OVER (PARTITION BY b.log_id, b.round ORDER BY s.first_line) AS play_rank
    FROM bids b JOIN seated s USING (log_id, round, player)
) WHERE bid_rank <> play_rank
UNION ALL
SELECT log_id, 'turns', last_line, CASE
    WHEN last_line - first_line + 1 <> n_rows
        THEN format('{{}}''s hands are not played in one run of rows', player)
    ELSE format('{{}} has {{}} hands (ids up to {{}}) after {{}} Splits', player, n_hands,
                top_hand, splits) END
FROM seated
WHERE last_line - first_line + 1 <> n_rows OR n_hands <> splits + 1 OR top_hand <> splits
UNION ALL
SELECT log_id, 'turns', last_line, CASE
    WHEN last_line - first_line + 1 <> n_rows
        THEN format('hand {{}} of {{}} is not played in one run of rows', hand_id, player)
    ELSE format('hand {{}} of {{}} ends with a {{}}, not a Stand, before it is finished',
                hand_id, player, last_act) END
FROM classed
WHERE last_line - first_line + 1 <> n_rows
   OR NOT (last_act = 'Stand' OR total > 21 OR n >= {rule("charlie_cards")}
           OR (last_act = 'DoubleDown' AND n = 2 AND total = 21))
UNION ALL
SELECT log_id, 'turns', last_line, CASE
    WHEN shoe IS NULL THEN format('{{}} appears {{}} times in round {{}}: the two shoes it was '
                                  'dealt from hold {{}}', card, copies, round, held)
    ELSE format('{{}} appears {{}} times in rounds {{}} to {{}}, all dealt from one shoe of {{}} '
                'decks: it holds {{}}', card, copies, first_round, round, {rule("decks")}, held)
    END
FROM (  -- the round where the copies run over
    SELECT *, min(round) OVER (PARTITION BY log_id, shoe, lone_round, card) AS first_round,
           sum(in_round) OVER (PARTITION BY log_id, shoe, lone_round, card ORDER BY round)
               AS copies
    FROM (
        SELECT c.log_id, o.shoe, o.lone_round, c.card, o.held, c.round,
               any_value(c.last_line) AS last_line, count(*) AS in_round
        FROM cards c JOIN overdrawn o ON c.log_id = o.log_id AND c.card = o.card
             AND (c.shoe = o.shoe OR c.round = o.lone_round)
        GROUP BY ALL
    )
) WHERE copies > held AND copies - in_round <= held
UNION ALL
SELECT p.log_id, 'turns', b.bid_line,
       format('{{}} bids {{}} with {{}} points: the bid must be between {{}} and {{}}', p.player,
              b.bid, p.points_before, least({rule("min_bid")}, p.points_before),
              least({rule("max_bid")}, p.points_before))
FROM players p JOIN bids b USING (log_id, round, player)
WHERE NOT b.bid BETWEEN least({rule("min_bid")}, p.points_before)
                    AND least({rule("max_bid")}, p.points_before)
   OR p.points_before <= 0
UNION ALL
SELECT p.log_id, 'scores', p.line,
       format('{{}}''s points go from {{}} to {{}} in round {{}}, but its hands settle to {{:+d}}',
              p.player, p.points_before, p.points, p.round, coalesce(s.change, 0))
FROM players p LEFT JOIN settled s USING (log_id, round, player)
WHERE p.points IS DISTINCT FROM p.points_before + coalesce(s.change, 0)
UNION ALL
{out_of_range("turns", SANE["turns"])}
UNION ALL
{out_of_range("scores", SANE["scores"])}
"""
