-- PROVENANCE: these comment lines are replaced by the generated header.
module Proj1 (feedback, initialGuess, nextGuess, GameState) where

-- The COMP30020 card-guessing player of `mine generate cardguess --lang
-- haskell`. It guesses exactly as the Python file of the same trees: each
-- answer size with a tree follows it (a node's guess, then the child the
-- feedback leads to); off the tree (a feedback no answer gives, or a size
-- without a tree) it guesses the first hand, in the order of the cards'
-- numbers, consistent with every feedback so far and not yet guessed. (The
-- Python file stops that search after half a second and then guesses the
-- first hand not yet guessed; a pure function cannot read a clock, so this
-- one searches to the end, well inside the handout's ten seconds a game.)

import Card (Card (Card))
import qualified Data.IntMap.Strict as IntMap
import Data.List (delete, find, foldl', nub, sort)
import qualified Data.Map as Map
import Data.Maybe (fromMaybe, mapMaybe)

-- The fitted trees: per answer size, the number of nodes and the tree,
-- breadth-first, each node written as its guess (n card numbers, one
-- character each), how many children it has and the feedback code leading
-- to it (two characters each), in base 64 over `alphabet`. The definitions
-- from here to the end marker are written by `mine generate` from the
-- fitted trees.
-- BEGIN DATA

treeData :: [(Int, Int, String)]
treeData = [(2, 1, "ohAAAA")]

-- END DATA

-- | What a game keeps between guesses: the answer size, the node of the
-- tree the last guess came from (-1: off the tree), every guess with its
-- feedback (latest first), and the hands consistent with all of them, in
-- order (filtered lazily: only a game that leaves the tree walks them, and
-- then each hand once for each feedback).
data GameState = GameState Int Int [([Int], Feedback)] [[Int]]

type Feedback = (Int, Int, Int, Int, Int)

-- | A node: its guess, where its children start, how many there are, and
-- the feedback code that leads to it.
data Node = Node [Int] Int Int Int

-- | (correct cards, lower ranks, correct ranks, higher ranks, correct
-- suits) of a guess for an answer.
feedback :: [Card] -> [Card] -> Feedback
feedback answer guess =
  feedbackTo (map cardNumber guess) (map cardNumber answer)

-- | The first guess for an answer of n cards.
initialGuess :: Int -> ([Card], GameState)
initialGuess n = case IntMap.lookup n trees >>= guessAt 0 of
  Just cards -> (cards, GameState n 0 [] hands)
  Nothing -> (fallback n [] hands, GameState n (-1) [] hands)
  where
    hands = combinations n [0 .. 51]

-- | The next guess, given the last one and its feedback.
nextGuess :: ([Card], GameState) -> Feedback -> ([Card], GameState)
nextGuess (guess, GameState n at history consistent) numbers = case child of
  Just (next, cards) -> (cards, GameState n next history' consistent')
  Nothing -> (fallback n history' consistent', offTree)
  where
    guessed = map cardNumber guess
    history' = (guessed, numbers) : history
    consistent' = filter ((== numbers) . feedbackTo guessed) consistent
    offTree = GameState n (-1) history' consistent'
    child = do
      tree <- IntMap.lookup n trees
      Node _ first count _ <- if at < 0 then Nothing else IntMap.lookup at tree
      next <- find (leadsHere tree) [first .. first + count - 1]
      cards <- guessAt next tree
      pure (next, cards)
    leadsHere tree k = (codeOf <$> IntMap.lookup k tree) == Just (code numbers)
    codeOf (Node _ _ _ c) = c

-- | A card's number: rank (2 .. ace: 0 .. 12) times 4 plus suit (C D H S:
-- 0 .. 3).
cardNumber :: Card -> Int
cardNumber (Card s r) = fromEnum r * 4 + fromEnum s

cards52 :: Map.Map Int Card
cards52 =
  Map.fromList
    [ (cardNumber c, c)
      | s <- [minBound .. maxBound],
        r <- [minBound .. maxBound],
        let c = Card s r
    ]

toCards :: [Int] -> [Card]
toCards = mapMaybe (`Map.lookup` cards52)

-- | The feedback to `guess` for each answer it is applied to (what depends
-- on the guess alone is worked out once).
feedbackTo :: [Int] -> [Int] -> Feedback
feedbackTo guess = \answer ->
  let answerRanks = map (`div` 4) answer
   in ( length [a | a <- nub answer, a `elem` guess],
        length (filter (< lowest) answerRanks),
        overlap answerRanks guessRanks,
        length (filter (> highest) answerRanks),
        overlap (map (`mod` 4) answer) guessSuits
      )
  where
    guessRanks = map (`div` 4) guess
    guessSuits = map (`mod` 4) guess
    (lowest, highest) = case guessRanks of
      [] -> (minBound, maxBound)
      r : rs -> (foldl' min r rs, foldl' max r rs)

-- | How many of `answer` pair off with one of `guess` each.
overlap :: [Int] -> [Int] -> Int
overlap answer guess = fst (foldl' pairOff (0, guess) answer)
  where
    pairOff (k, left) v
      | v `elem` left = (k + 1, delete v left)
      | otherwise = (k, left)

-- | A feedback as one number in base 5.
code :: Feedback -> Int
code (a, b, c, d, e) = foldl' (\v x -> v * 5 + x) 0 [a, b, c, d, e]

-- | Off the tree: the first hand consistent with every feedback so far
-- (`consistent`) and not yet guessed, else the first hand not yet guessed.
fallback :: Int -> [([Int], Feedback)] -> [[Int]] -> [Card]
fallback n history consistent =
  toCards (fromMaybe spare (find fresh consistent))
  where
    guessed = map (sort . nub . fst) history
    fresh = (`notElem` guessed)
    spare = fromMaybe [] (find fresh (combinations n [0 .. 51]))

combinations :: Int -> [a] -> [[a]]
combinations 0 _ = [[]]
combinations _ [] = []
combinations k (x : xs) =
  map (x :) (combinations (k - 1) xs) ++ combinations k xs

-- * The trees

trees :: IntMap.IntMap (IntMap.IntMap Node)
trees =
  IntMap.fromList [(n, decodeTree n count text) | (n, count, text) <- treeData]

guessAt :: Int -> IntMap.IntMap Node -> Maybe [Card]
guessAt at tree = cardsOf <$> IntMap.lookup at tree
  where
    cardsOf (Node cards _ _ _) = toCards cards

decodeTree :: Int -> Int -> String -> IntMap.IntMap Node
decodeTree n count text = IntMap.fromList (zip [0 ..] nodes)
  where
    parsed = map node (take count (chunks text))
    node chunk =
      ( map digit (take n chunk),
        number (take 2 (drop n chunk)),
        number (drop (n + 2) chunk)
      )
    firsts = scanl (+) 1 [children | (_, children, _) <- parsed]
    nodes =
      [ Node guess first children c
        | ((guess, children, c), first) <- zip parsed firsts
      ]
    chunks rest = case splitAt (n + 4) rest of
      ([], _) -> []
      (chunk, more) -> chunk : chunks more
    number = foldl' (\v ch -> v * 64 + digit ch) 0

alphabet :: String
alphabet = ['A' .. 'Z'] ++ ['a' .. 'z'] ++ ['0' .. '9'] ++ "+/"

digit :: Char -> Int
digit ch = fromMaybe 0 (Map.lookup ch digits)

digits :: Map.Map Char Int
digits = Map.fromList (zip alphabet [0 ..])
